//! Peers' results: JSON lines, one record each, as the peers' scripts under `peer/` write them
//! (CUB, the wavelet libraries, Vello, Embree). Lines not starting with `{` (a peer's own log
//! lines) are skipped; an error names the file and the line.

use std::path::Path;

use crate::error::{Error, Result};

/// Every record of the JSON-lines file at `path`.
pub fn read_lines<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::file(path, e))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with('{'))
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| Error::file(path, format!("line {}: {e}", i + 1)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct R {
        n: u32,
    }

    #[test]
    fn records_are_read_and_a_bad_line_is_named_by_its_number() {
        let temp = tempfile::Builder::new()
            .prefix("wavekit-peer-")
            .tempdir()
            .unwrap();
        let dir = temp.path();
        let p = dir.join("peer.jsonl");
        std::fs::write(&p, "cub 3.0\n{\"n\": 1}\n\n{\"n\": 2}\n").unwrap();
        assert_eq!(read_lines::<R>(&p).unwrap(), [R { n: 1 }, R { n: 2 }]);
        std::fs::write(&p, "log\n{\"n\": 1}\n{\"n\": \"x\"}\n").unwrap();
        let e = read_lines::<R>(&p).unwrap_err().to_string();
        assert!(e.contains("line 3"), "{e}");
        assert!(e.contains("peer.jsonl"), "{e}");
        assert!(read_lines::<R>(&dir.join("missing")).is_err());
    }
}
