//! Packet traces: the packets a run delivered, one per line, and reading them back to replay
//! as a workload (`traffic.process = "trace"`).
//!
//! The format is plain text (gzip-compressed when the file name ends in `.gz`): lines starting
//! with `#` are comments, every other line is one packet as whitespace-separated integers,
//!
//! ```text
//! created src dst flits [injected delivered]
//! ```
//!
//! the cycle the packet was created, its source and destination nodes, its length in flits and,
//! in traces a run writes, the cycles its head left the source and it was delivered. A run
//! writes its packets in delivery order; a replay takes them in creation order.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;

/// The first line of a trace a run writes.
pub const HEADER: &str = "# tailback packet trace v1: created src dst flits injected delivered";

/// One packet of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct TraceRecord {
    /// Creation cycle.
    pub created: u64,
    /// Source node.
    pub src: u32,
    /// Destination node.
    pub dst: u32,
    /// Length in flits.
    pub flits: u32,
    /// Cycle the head left the source NIC (0 in hand-written traces).
    pub injected: u64,
    /// Cycle the packet was delivered (0 in hand-written traces).
    pub delivered: u64,
}

impl TraceRecord {
    /// Writes the record as one line.
    pub fn write_line(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(
            out,
            "{} {} {} {} {} {}",
            self.created, self.src, self.dst, self.flits, self.injected, self.delivered
        )
    }
}

/// Where a run writes its trace: the first write error stops writing and is reported at the
/// end.
pub(crate) struct TraceSink {
    out: Box<dyn Write + Send>,
    written: u64,
    error: Option<io::Error>,
}

impl TraceSink {
    pub(crate) fn new(out: Box<dyn Write + Send>) -> TraceSink {
        TraceSink {
            out,
            written: 0,
            error: None,
        }
    }

    /// Writes `records` (unless an earlier write failed).
    pub(crate) fn write(&mut self, records: &[TraceRecord]) {
        if self.error.is_some() {
            return;
        }
        for r in records {
            if let Err(e) = r.write_line(&mut self.out) {
                self.error = Some(e);
                return;
            }
        }
        self.written += records.len() as u64;
    }

    /// Flushes the output; returns the packets written, or the first error.
    pub(crate) fn finish(mut self) -> io::Result<u64> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.written)
    }
}

/// Why a trace could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be opened or read.
    #[error("cannot read trace {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A line is not a packet.
    #[error("trace {}, line {line}: {message}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// Line number, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// A writer for a trace file, compressed if `path` ends in `.gz`, with the header written.
pub fn create(path: &Path) -> io::Result<Box<dyn Write + Send>> {
    let file = BufWriter::new(File::create(path)?);
    let mut out: Box<dyn Write + Send> = if is_gzip(path) {
        Box::new(GzEncoder::new(file, Compression::fast()))
    } else {
        Box::new(file)
    };
    writeln!(out, "{HEADER}")?;
    Ok(out)
}

fn is_gzip(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

/// Reads the packets of the trace at `path` (gzip if it ends in `.gz`), sorted by creation
/// cycle (ties in file order); every node index must be below `nodes`.
pub fn read(path: &Path, nodes: usize) -> Result<Vec<TraceRecord>, TraceError> {
    let io_error = |source| TraceError::Io {
        path: path.to_path_buf(),
        source,
    };
    crate::files::check_regular(path)
        .map_err(|message| io_error(io::Error::new(io::ErrorKind::InvalidInput, message)))?;
    let file = File::open(path).map_err(io_error)?;
    let mut reader: Box<dyn BufRead> = if is_gzip(path) {
        Box::new(BufReader::new(MultiGzDecoder::new(file)))
    } else {
        Box::new(BufReader::new(file))
    };
    let mut records = Vec::new();
    let mut bytes = Vec::new();
    // Streamed a line at a time, each line bounded: an endless line is refused, not held.
    for i in 0.. {
        let line_error = |message: String| TraceError::Line {
            path: path.to_path_buf(),
            line: i + 1,
            message,
        };
        let more = crate::files::read_line_limited(
            &mut reader,
            &mut bytes,
            crate::files::MAX_TRACE_LINE_BYTES,
        )
        .map_err(|e| match e.kind() {
            io::ErrorKind::InvalidData => line_error(e.to_string()),
            _ => io_error(e),
        })?;
        if !more {
            break;
        }
        let line =
            std::str::from_utf8(&bytes).map_err(|_| line_error("not UTF-8 text".to_string()))?;
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let record = parse(text, nodes).map_err(|message| TraceError::Line {
            path: path.to_path_buf(),
            line: i + 1,
            message,
        })?;
        records.push(record);
    }
    records.sort_by_key(|r| r.created);
    Ok(records)
}

/// The latest cycle a replayed packet may be created at: creation times are scaled in
/// floating point, exact up to 2^53.
pub const LATEST_CYCLE: u64 = 1 << 53;

/// Checks that every packet of `records` (sorted by creation) is created by [`LATEST_CYCLE`],
/// as written and once its time is scaled by `time_scale`.
pub fn check_times(records: &[TraceRecord], time_scale: f64) -> Result<(), String> {
    // Past 2^53 a creation time is no longer exact as a float, scaled or not: compared as an
    // integer first, so cycle 2^53 + 1 is not taken for 2^53.
    match records.last() {
        Some(last)
            if last.created > LATEST_CYCLE
                || (last.created as f64 * time_scale).round() > LATEST_CYCLE as f64 =>
        {
            Err(format!(
                "its last packet, created at cycle {} and scaled by {time_scale}, would be \
                 created after cycle {LATEST_CYCLE}, the latest a replay can reach",
                last.created
            ))
        }
        _ => Ok(()),
    }
}

/// One packet line.
fn parse(text: &str, nodes: usize) -> Result<TraceRecord, String> {
    const SHAPE: &str = "expected `created src dst flits` or `created src dst flits injected \
                         delivered` (non-negative integers)";
    // At most six fields, parsed without allocating.
    let mut fields = [0u64; 6];
    let mut count = 0;
    for field in text.split_whitespace() {
        if count == fields.len() {
            return Err(format!("{SHAPE}; found more than 6 fields"));
        }
        fields[count] = field
            .parse()
            .map_err(|_| format!("{SHAPE}; found `{text}`"))?;
        count += 1;
    }
    let (created, src, dst, flits, injected, delivered) = match fields[..count] {
        [c, s, d, f] => (c, s, d, f, 0, 0),
        [c, s, d, f, i, v] => (c, s, d, f, i, v),
        _ => return Err(format!("{SHAPE}; found {count} fields")),
    };
    for (name, node) in [("source", src), ("destination", dst)] {
        if node >= nodes as u64 {
            let range = match nodes {
                0 => "no nodes".to_string(),
                _ => format!("nodes 0 to {}", nodes - 1),
            };
            return Err(format!(
                "{name} node {node} does not exist; the network has {range}"
            ));
        }
    }
    if flits == 0 || flits > u64::from(u32::MAX) {
        return Err(format!(
            "a packet needs 1 to {} flits; found {flits}",
            u32::MAX
        ));
    }
    Ok(TraceRecord {
        created,
        src: src as u32,
        dst: dst as u32,
        flits: flits as u32,
        injected,
        delivered,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cycle 2^53 + 1 is not a float: it must be refused, not replayed at 2^53.
    #[test]
    fn the_latest_cycle_is_compared_exactly() {
        let at = |created| {
            [TraceRecord {
                created,
                src: 0,
                dst: 1,
                flits: 1,
                injected: 0,
                delivered: 0,
            }]
        };
        assert!(check_times(&at(LATEST_CYCLE), 1.0).is_ok());
        assert!(check_times(&at(LATEST_CYCLE + 1), 1.0).is_err());
        assert!(check_times(&at(LATEST_CYCLE + 1), 0.5).is_err());
        assert!(check_times(&at(LATEST_CYCLE / 2 + 1), 2.0).is_err());
        assert!(check_times(&at(LATEST_CYCLE / 2), 2.0).is_ok());
    }

    /// A device or an endless line is refused, never read into memory whole.
    #[test]
    fn devices_and_endless_lines_are_refused() {
        let err = read(Path::new("/dev/zero"), 4).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
        let err = read(Path::new("/dev/null"), 4).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let long = dir.path().join("long.trace");
        std::fs::write(&long, format!("1 0 1 1\n{}\n", "7".repeat(10_000))).unwrap();
        let err = read(&long, 4).unwrap_err().to_string();
        assert!(
            err.contains("line 2") && err.contains("longer than 4096"),
            "{err}"
        );
    }

    #[test]
    fn written_records_read_back_in_creation_order_plain_and_gzipped() {
        let dir = tempfile::tempdir().unwrap();
        let records = [
            TraceRecord {
                created: 9,
                src: 1,
                dst: 2,
                flits: 4,
                injected: 10,
                delivered: 30,
            },
            TraceRecord {
                created: 3,
                src: 0,
                dst: 3,
                flits: 1,
                injected: 3,
                delivered: 12,
            },
        ];
        for name in ["t.txt", "t.txt.gz"] {
            let path = dir.path().join(name);
            let mut out = create(&path).unwrap();
            for r in &records {
                r.write_line(&mut out).unwrap();
            }
            drop(out);
            let back = read(&path, 4).unwrap();
            assert_eq!(back, vec![records[1], records[0]], "{name}");
        }
    }

    #[test]
    fn bad_lines_are_reported_with_their_number() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.txt");
        for (text, part) in [
            (
                "# c\n1 0 1 4\n2 0 9 4\n",
                "line 3: destination node 9 does not exist",
            ),
            ("1 0 1\n", "line 1: expected"),
            ("1 0 1 0\n", "line 1: a packet needs 1"),
            ("1 0 x 4\n", "found `1 0 x 4`"),
        ] {
            std::fs::write(&path, text).unwrap();
            let error = read(&path, 4).unwrap_err().to_string();
            assert!(error.contains(part), "{error}");
        }
        let missing = read(&dir.path().join("none"), 4).unwrap_err();
        assert!(matches!(missing, TraceError::Io { .. }));
    }
}
