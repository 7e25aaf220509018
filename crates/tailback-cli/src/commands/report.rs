//! `tailback report`: a static HTML report of the experiments and sweeps under directories.

use crate::cli::ReportArgs;
use crate::error::CliResult;

pub fn run(args: ReportArgs) -> CliResult {
    let index = crate::report::build(&args.dirs, args.out.as_deref())?;
    println!("report: {}", index.display());
    Ok(())
}
