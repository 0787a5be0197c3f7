//! Sets `CARDREF_BUILD_ID` (see `build_id.rs`) for the crate, which the Python
//! module exposes as `cardref._core.BUILD_ID`.

mod build_id;

use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    let manifest = env::var("CARGO_MANIFEST_DIR").expect("set by cargo");
    let root = Path::new(&manifest)
        .parent()
        .expect("the crate lives in rust/ of the repository");
    println!("cargo:rerun-if-changed=src");
    for name in build_id::BUILD_FILES {
        println!("cargo:rerun-if-changed={}", root.join(name).display());
    }
    let var = |name: &str| env::var(name).unwrap_or_default();
    let mut features: Vec<String> = env::vars()
        .filter_map(|(k, _)| k.strip_prefix("CARGO_FEATURE_").map(str::to_lowercase))
        .collect();
    features.sort();
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let toolchain = Command::new(&rustc)
        .arg("-vV")
        .output()
        .expect("rustc -vV runs");
    let inputs = build_id::Inputs {
        files: build_id::source_files(root).expect("the Rust sources are readable"),
        toolchain: String::from_utf8_lossy(&toolchain.stdout).into_owned(),
        target: var("TARGET"),
        profile: var("PROFILE"),
        opt_level: var("OPT_LEVEL"),
        debug: var("DEBUG"),
        features,
        rustflags: var("CARGO_ENCODED_RUSTFLAGS"),
    };
    println!(
        "cargo:rustc-env=CARDREF_BUILD_ID={}",
        build_id::build_id(&inputs)
    );
}
