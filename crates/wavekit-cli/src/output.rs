//! What every command shares about the files it writes: outputs checked before any work (never
//! the input, a folder that exists, no two outputs one file), written whole through a
//! temporary file beside them, and file errors that name the path.

use std::path::{Path, PathBuf};

use crate::error::CliError;

pub(crate) fn file_err(path: &Path, e: impl std::fmt::Display) -> CliError {
    CliError::File {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Refuse an output that is the input, or a folder that does not exist, before any work.
pub(crate) fn check_output(input: &Path, output: &Path) -> Result<(), CliError> {
    let same = match (input.canonicalize(), output.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Err(file_err(
            output,
            "is the input file; give another output path (the input is never overwritten)",
        ));
    }
    let dir = output.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(d) = dir
        && !d.is_dir()
    {
        return Err(file_err(output, format!("no such folder {}", d.display())));
    }
    Ok(())
}

/// Where `path` would be: its folder made absolute (and canonical where it exists) joined with
/// its name, so that two spellings of one file compare equal before it exists.
fn resolved(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let dir = dir.map_or_else(|| Path::new(".").to_path_buf(), Path::to_path_buf);
    let dir = dir.canonicalize().unwrap_or(dir);
    match path.file_name() {
        Some(name) => dir.join(name),
        None => dir,
    }
}

/// A command's outputs, checked before any work: each one's folder exists, and no two name
/// one file (the second write would replace the first: a result lost).
pub(crate) fn check_outputs(outputs: &[(&str, &Path)]) -> Result<(), CliError> {
    for (i, (what, out)) in outputs.iter().enumerate() {
        let dir = out.parent().filter(|p| !p.as_os_str().is_empty());
        if let Some(d) = dir
            && !d.is_dir()
        {
            return Err(file_err(out, format!("no such folder {}", d.display())));
        }
        for (other, o) in &outputs[..i] {
            if resolved(out) == resolved(o) {
                return Err(file_err(
                    out,
                    format!(
                        "is named for both {other} and {what}: the second would replace the \
                         first; give each output its own file"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Write `bytes` to `path` through a temporary file beside it, renamed into place when whole.
pub(crate) fn write_atomic(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp: PathBuf = path.with_file_name(format!(".{name}.wavekit-{}.tmp", std::process::id()));
    let result =
        write(&tmp).and_then(|()| std::fs::rename(&tmp, path).map_err(|e| file_err(path, e)));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
