//! The engine's build id: one hash of everything that decides what the Rust
//! build computes, so that two processes can tell whether they run the same
//! engine. Used by `build.rs` (which sets `CARDREF_BUILD_ID` for the crate)
//! and by `rust/tests/build_id.rs`.
//!
//! The inputs are the contents of the Rust sources, the manifests, `Cargo.lock`
//! and the Cargo config (by path relative to the repository root, so the
//! folder the checkout lives in does not count, nor do file times), the
//! compiler's `rustc -vV`, the target, the profile, the optimisation and debug
//! levels, the crate's enabled features and the effective `RUSTFLAGS`.
//! The hash is SipHash (std's `DefaultHasher`, fixed keys) run twice with
//! different prefixes for 128 bits: it detects accidental mismatches, and as
//! the compiler version is an input, a change of std's algorithm changes the
//! id only together with the toolchain.

use std::hash::{DefaultHasher, Hasher};
use std::io;
use std::path::Path;

/// Files outside `rust/src` whose contents shape the build, relative to the
/// repository root. A missing one (the Cargo config in a source archive that
/// leaves it out) is hashed as missing.
pub const BUILD_FILES: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    ".cargo/config.toml",
    "rust/Cargo.toml",
    "rust/build.rs",
    "rust/build_id.rs",
];

/// Everything the id is computed from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    /// (path relative to the repository root with `/` separators, contents or
    /// None when missing), sorted by path.
    pub files: Vec<(String, Option<Vec<u8>>)>,
    /// `rustc -vV`: version, commit, host and LLVM version.
    pub toolchain: String,
    pub target: String,
    pub profile: String,
    pub opt_level: String,
    pub debug: String,
    /// Enabled features of the crate, sorted.
    pub features: Vec<String>,
    /// `CARGO_ENCODED_RUSTFLAGS` (flags separated by 0x1f).
    pub rustflags: String,
}

/// Every `*.rs` file under `rust/src` and every [`BUILD_FILES`] entry of the
/// repository at `root`, sorted by relative path.
pub fn source_files(root: &Path) -> io::Result<Vec<(String, Option<Vec<u8>>)>> {
    let mut files = Vec::new();
    collect_rs(root, &root.join("rust").join("src"), &mut files)?;
    for name in BUILD_FILES {
        let contents = match std::fs::read(root.join(name)) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        files.push((name.to_string(), contents));
    }
    files.sort();
    Ok(files)
}

fn collect_rs(root: &Path, dir: &Path, out: &mut Vec<(String, Option<Vec<u8>>)>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_rs(root, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(root).expect("under the root");
            let name: Vec<_> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push((name.join("/"), Some(std::fs::read(&path)?)));
        }
    }
    Ok(())
}

/// The id: 32 lowercase hex digits.
pub fn build_id(inputs: &Inputs) -> String {
    let half = |prefix: &[u8]| {
        let mut h = DefaultHasher::new();
        field(&mut h, prefix);
        field(&mut h, &(inputs.files.len() as u64).to_le_bytes());
        for (name, contents) in &inputs.files {
            field(&mut h, name.as_bytes());
            match contents {
                Some(bytes) => {
                    field(&mut h, b"present");
                    field(&mut h, bytes);
                }
                None => field(&mut h, b"missing"),
            }
        }
        for text in [
            &inputs.toolchain,
            &inputs.target,
            &inputs.profile,
            &inputs.opt_level,
            &inputs.debug,
            &inputs.rustflags,
        ] {
            field(&mut h, text.as_bytes());
        }
        field(&mut h, &(inputs.features.len() as u64).to_le_bytes());
        for feature in &inputs.features {
            field(&mut h, feature.as_bytes());
        }
        h.finish()
    };
    format!(
        "{:016x}{:016x}",
        half(b"cardref-build-1"),
        half(b"cardref-build-2")
    )
}

/// One length-prefixed field, so that no two different input lists hash the
/// same byte stream ("ab" + "c" is not "a" + "bc").
fn field(h: &mut DefaultHasher, bytes: &[u8]) {
    h.write(&(bytes.len() as u64).to_le_bytes());
    h.write(bytes);
}
