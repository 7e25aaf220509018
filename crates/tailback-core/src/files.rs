//! Reading the files a configuration names, bounded: only regular files, and no more than a
//! stated size, so that a device such as `/dev/zero` or an endless pipe is refused instead of
//! read until memory runs out.

use std::fs::File;
use std::io::{BufRead, Read};
use std::path::Path;

/// Most bytes of a configuration file.
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;
/// Most bytes of a topology file.
pub const MAX_TOPOLOGY_BYTES: u64 = 256 << 20;
/// Most bytes of one line of a packet trace (a trace itself is streamed, line by line).
pub const MAX_TRACE_LINE_BYTES: u64 = 4096;

/// Why `path` cannot be read as a regular file: missing, a directory, a device or a pipe.
pub fn check_regular(path: &Path) -> Result<(), String> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err("no such file".to_string()),
        Err(e) => Err(format!("cannot read it: {e}")),
        Ok(meta) if meta.is_file() => Ok(()),
        Ok(meta) if meta.is_dir() => Err("a directory, not a file".to_string()),
        Ok(_) => Err("not a regular file (a device, pipe or socket)".to_string()),
    }
}

/// The text of the regular file at `path`, refused past `limit` bytes or when it is not UTF-8;
/// the error says why without the path.
pub fn read_text(path: &Path, limit: u64) -> Result<String, String> {
    check_regular(path)?;
    let file = File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    read_limited(file, limit)
}

/// Everything `reader` gives, refused past `limit` bytes or when it is not UTF-8.
pub fn read_limited(reader: impl Read, limit: u64) -> Result<String, String> {
    let mut bytes = Vec::new();
    reader
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(format!("larger than {}, the most read", size(limit)));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text (byte {} is not valid)",
            e.utf8_error().valid_up_to()
        )
    })
}

/// The next line of `reader` into `line` (without its end), `false` at the end; a line of more
/// than `limit` bytes is refused.
pub fn read_line_limited(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    limit: u64,
) -> std::io::Result<bool> {
    line.clear();
    let read = reader.by_ref().take(limit + 1).read_until(b'\n', line)?;
    if read == 0 {
        return Ok(false);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
    } else if line.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a line longer than {limit} bytes"),
        ));
    }
    Ok(true)
}

/// `bytes` in binary units: 16 MiB.
fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_directories_are_not_files() {
        assert_eq!(
            check_regular(Path::new("/nonexistent/x")).unwrap_err(),
            "no such file"
        );
        assert!(
            check_regular(Path::new("/dev/zero"))
                .unwrap_err()
                .contains("not a regular")
        );
        assert!(
            check_regular(Path::new("/dev/null"))
                .unwrap_err()
                .contains("not a regular")
        );
        assert!(
            check_regular(Path::new("/"))
                .unwrap_err()
                .contains("directory")
        );
        assert!(read_text(Path::new("/dev/zero"), 10).is_err());
    }

    #[test]
    fn reads_stop_past_their_limit() {
        assert_eq!(read_limited(&b"abc"[..], 3).unwrap(), "abc");
        assert!(
            read_limited(&b"abcd"[..], 3)
                .unwrap_err()
                .contains("larger than 3 bytes")
        );
        assert!(
            read_limited(std::io::repeat(0), 16 << 20)
                .unwrap_err()
                .contains("16 MiB")
        );
        assert!(
            read_limited(&[0xff, 0xfe][..], 3)
                .unwrap_err()
                .contains("UTF-8")
        );
    }

    #[test]
    fn lines_are_cut_at_their_end_and_refused_past_the_limit() {
        let mut reader = std::io::BufReader::new(&b"ab\r\ncd\nlonger than four"[..]);
        let mut line = Vec::new();
        assert!(read_line_limited(&mut reader, &mut line, 4).unwrap());
        assert_eq!(line, b"ab");
        assert!(read_line_limited(&mut reader, &mut line, 4).unwrap());
        assert_eq!(line, b"cd");
        assert!(read_line_limited(&mut reader, &mut line, 4).is_err());
        let mut endless = std::io::BufReader::new(std::io::repeat(0));
        assert!(read_line_limited(&mut endless, &mut line, 4096).is_err());
        let mut empty = std::io::BufReader::new(&b""[..]);
        assert!(!read_line_limited(&mut empty, &mut line, 4).unwrap());
    }
}
