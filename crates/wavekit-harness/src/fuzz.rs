//! Mutation fuzzing on stable Rust, bounded, for the test command: every parser of user files
//! (`.npy`, PNG/PGM, y4m, JSON scenes, OBJ/PLY meshes, the codec's bitstream) has a target
//! that takes bytes, and [`fuzz`] feeds it its corpus (`fuzz/corpus/<target>/` at the
//! repository's root: valid files and every input that once broke a parser) and then inputs
//! mutated from it: bits flipped, bytes set to edge values, runs deleted, repeated or
//! inserted, numbers in text replaced by huge, negative or malformed ones, files cut short,
//! two files spliced. A target must return (accepted or refused), never panic or hang; an
//! input that panics is saved and named, to be added to the corpus as a regression.
//!
//! The runs and the seed are fixed (CI is reproducible); `WAVEKIT_FUZZ_RUNS` and
//! `WAVEKIT_FUZZ_SEED` change them for a longer search.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::path::{Path, PathBuf};

use crate::{Env, Source};

/// What a campaign did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Inputs tried (the corpus, then mutations).
    pub runs: usize,
    /// Inputs the target accepted.
    pub accepted: usize,
    /// Inputs the target refused with an error.
    pub refused: usize,
}

/// The repository's corpus folder of `target`.
pub fn corpus_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target)
}

/// The corpus of `target`, in name order (an error if it is missing or empty: a target with
/// no seeds tests little).
pub fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = corpus_dir(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("fuzz corpus {}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "fuzz corpus {} is empty", dir.display());
    files
}

fn knob(name: &str, default: u64) -> u64 {
    match Env.get(name) {
        None => default,
        Some(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v}: give a whole number")),
    }
}

/// Run `target` over its corpus and then `runs` mutated inputs (`WAVEKIT_FUZZ_RUNS` if set).
/// `f` returns `true` when it accepted the input, `false` when it refused it with an error;
/// a panic is saved to a file and reported with its path. Prints the outcome.
pub fn fuzz(target: &str, runs: usize, f: impl FnMut(&[u8]) -> bool) -> Outcome {
    fuzz_with(target, Vec::new(), runs, f)
}

/// [`fuzz`] with `extra` seeds besides the corpus (valid inputs a test makes, as an encoder's
/// output, rather than binary files kept in the repository).
pub fn fuzz_with(
    target: &str,
    extra: Vec<(String, Vec<u8>)>,
    runs: usize,
    mut f: impl FnMut(&[u8]) -> bool,
) -> Outcome {
    let mut seeds = corpus(target);
    seeds.extend(extra);
    let runs = knob("WAVEKIT_FUZZ_RUNS", runs as u64) as usize;
    let seed = knob("WAVEKIT_FUZZ_SEED", 0)
        ^ target.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut out = Outcome::default();
    // The input under test is kept on disk while it runs, so that one that aborts the
    // process (an allocation of terabytes, a stack overflow) can be found afterwards.
    let dir = std::env::temp_dir().join("wavekit-fuzz");
    std::fs::create_dir_all(&dir).ok();
    let current = dir.join(format!("{target}-running.bin"));
    let mut one = |input: &[u8], what: &str, out: &mut Outcome| {
        std::fs::write(&current, input).ok();
        match catch_unwind(AssertUnwindSafe(|| f(input))) {
            Ok(true) => out.accepted += 1,
            Ok(false) => out.refused += 1,
            Err(p) => {
                let file = dir.join(format!("{target}-{}.bin", out.runs));
                std::fs::write(&file, input).ok();
                eprintln!(
                    "fuzz {target}: {what} panicked; the input is {} (add it to {} as a \
                     regression once fixed)",
                    file.display(),
                    corpus_dir(target).display()
                );
                resume_unwind(p);
            }
        }
        out.runs += 1;
    };
    for (name, bytes) in &seeds {
        one(bytes, &format!("corpus file {name}"), &mut out);
    }
    for k in 0..runs {
        let base = &seeds[rng.usize(..seeds.len())].1;
        let other = &seeds[rng.usize(..seeds.len())].1;
        let mut input = base.clone();
        let edits = if rng.bool() { 1 } else { 1 + rng.usize(..4) };
        for _ in 0..edits {
            mutate(&mut rng, &mut input, other);
        }
        one(&input, &format!("mutation {k} (seed {seed})"), &mut out);
    }
    std::fs::remove_file(&current).ok();
    eprintln!(
        "fuzz {target}: {} inputs ({} corpus files, {runs} mutations): {} accepted, {} refused, \
         no panic",
        out.runs,
        seeds.len(),
        out.accepted,
        out.refused
    );
    out
}

/// Numbers that break parsers: huge, negative, fractional, not numbers at all.
const NUMBERS: [&str; 12] = [
    "0",
    "-1",
    "4294967295",
    "18446744073709551617",
    "1e308",
    "-1e39",
    "3e38",
    "NaN",
    "inf",
    "0.5",
    "-0",
    "99999999999999999999999",
];

fn mutate(rng: &mut fastrand::Rng, b: &mut Vec<u8>, other: &[u8]) {
    let n = b.len();
    match rng.u32(..9) {
        0 if n > 0 => {
            let i = rng.usize(..n);
            b[i] ^= 1 << rng.u32(..8);
        }
        1 if n > 0 => {
            let i = rng.usize(..n);
            b[i] = [0u8, 0xff, 0x7f, 0x80, b'9', b'-', b' ', b'\n', b'"', b'{'][rng.usize(..10)];
        }
        2 if n > 0 => {
            let i = rng.usize(..n);
            let len = rng.usize(..=(n - i).min(64));
            b.drain(i..i + len);
        }
        3 if n > 0 => {
            let i = rng.usize(..n);
            let len = rng.usize(1..=(n - i).min(64));
            let run: Vec<u8> = b[i..i + len].to_vec();
            for _ in 0..1 + rng.usize(..8) {
                b.splice(i..i, run.iter().copied());
            }
        }
        4 => {
            let i = rng.usize(..=n);
            let len = rng.usize(1..16);
            b.splice(i..i, (0..len).map(|_| rng.u8(..)));
        }
        5 if n > 0 => b.truncate(rng.usize(..n)),
        6 if !other.is_empty() => {
            let cut = rng.usize(..=n);
            let from = rng.usize(..other.len());
            b.truncate(cut);
            b.extend_from_slice(&other[from..]);
        }
        7 => {
            // A number in text replaced by an edge value.
            let digits: Vec<usize> = (0..n).filter(|&i| b[i].is_ascii_digit()).collect();
            if digits.is_empty() {
                return;
            }
            let mut i = digits[rng.usize(..digits.len())];
            while i > 0 && (b[i - 1].is_ascii_digit() || b[i - 1] == b'.' || b[i - 1] == b'-') {
                i -= 1;
            }
            let mut j = i;
            while j < n && (b[j].is_ascii_digit() || b[j] == b'.' || b[j] == b'e' || b[j] == b'-') {
                j += 1;
            }
            let with = NUMBERS[rng.usize(..NUMBERS.len())];
            b.splice(i..j, with.bytes());
        }
        8 if n >= 4 => {
            // A binary length or count set to an edge value.
            let i = rng.usize(..n - 3);
            let v: u32 = [0, 1, u32::MAX, 0x7fff_ffff, 0x8000_0000, 65536][rng.usize(..6)];
            b[i..i + 4].copy_from_slice(&v.to_le_bytes());
        }
        _ => b.push(rng.u8(..)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mutator changes inputs, keeps them in bounds, and reaches every kind of change.
    #[test]
    fn mutations_change_inputs_and_stay_in_bounds() {
        let mut rng = fastrand::Rng::with_seed(1);
        let seed = br#"{"width": 64, "items": [1.5, -2]}"#.to_vec();
        let mut changed = 0;
        let mut lengths = std::collections::BTreeSet::new();
        for _ in 0..2000 {
            let mut b = seed.clone();
            mutate(&mut rng, &mut b, b"\x93NUMPY\x01\x00");
            changed += usize::from(b != seed);
            lengths.insert(b.len());
        }
        assert!(
            changed > 1800,
            "only {changed} of 2000 mutations changed the input"
        );
        assert!(lengths.len() > 30, "only {} lengths", lengths.len());
        let mut empty = Vec::new();
        for _ in 0..200 {
            mutate(&mut rng, &mut empty, b"");
        }
    }
}
