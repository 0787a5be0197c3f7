//! The build id (`build_id.rs`): the same for the same sources and toolchain
//! wherever the checkout lives, different when anything that shapes the
//! build changes.

#[path = "../build_id.rs"]
mod build_id;

use build_id::{build_id, source_files, Inputs};
use std::fs;
use std::path::{Path, PathBuf};

/// A fresh folder under the system temp dir, removed when dropped.
struct TempTree(PathBuf);

impl TempTree {
    fn new(label: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("cardref-build-id-{}-{label}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        TempTree(path)
    }

    fn write(&self, name: &str, text: &str) {
        let path = self.0.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A small repository: two Rust sources in nested folders and the build files.
fn sample(label: &str) -> TempTree {
    let tree = TempTree::new(label);
    tree.write("rust/src/lib.rs", "pub mod games;\n");
    tree.write("rust/src/games/take5.rs", "pub fn rows() -> usize { 4 }\n");
    tree.write("rust/src/games/notes.txt", "not Rust: not part of the id\n");
    tree.write("rust/Cargo.toml", "[package]\nname = \"x\"\n");
    tree.write("rust/build.rs", "fn main() {}\n");
    tree.write("rust/build_id.rs", "\n");
    tree.write("Cargo.toml", "[workspace]\n");
    tree.write("Cargo.lock", "version = 4\n");
    tree.write(".cargo/config.toml", "[build]\n");
    tree
}

fn inputs(root: &Path) -> Inputs {
    Inputs {
        files: source_files(root).unwrap(),
        toolchain: "rustc 1.95.0 (59807616e 2026-04-14)\nhost: x86_64-unknown-linux-gnu\n".into(),
        target: "x86_64-unknown-linux-gnu".into(),
        profile: "release".into(),
        opt_level: "3".into(),
        debug: "false".into(),
        features: vec!["python".into()],
        rustflags: "-C\u{1f}target-cpu=x86-64-v2".into(),
    }
}

fn id_of(root: &Path) -> String {
    build_id(&inputs(root))
}

#[test]
fn the_id_is_32_hex_digits_and_the_crate_has_one() {
    let tree = sample("shape");
    for id in [id_of(&tree.0), env!("CARDREF_BUILD_ID").to_string()] {
        assert_eq!(id.len(), 32, "{id}");
        assert!(id
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    }
}

#[test]
fn the_same_sources_give_the_same_id_in_another_folder() {
    let (a, b) = (sample("here"), sample("elsewhere"));
    assert_eq!(id_of(&a.0), id_of(&b.0));
    assert_eq!(id_of(&a.0), id_of(&a.0));
}

#[test]
fn the_files_are_listed_relative_sorted_and_only_rust_sources() {
    let tree = sample("list");
    let names: Vec<String> = source_files(&tree.0)
        .unwrap()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(
        names,
        [
            ".cargo/config.toml",
            "Cargo.lock",
            "Cargo.toml",
            "rust/Cargo.toml",
            "rust/build.rs",
            "rust/build_id.rs",
            "rust/src/games/take5.rs",
            "rust/src/lib.rs",
        ]
    );
}

#[test]
fn rewriting_a_file_with_the_same_text_keeps_the_id() {
    let tree = sample("touch");
    let before = id_of(&tree.0);
    std::thread::sleep(std::time::Duration::from_millis(20));
    tree.write("rust/src/games/take5.rs", "pub fn rows() -> usize { 4 }\n");
    tree.write("rust/src/games/notes.txt", "edited, still not Rust\n");
    assert_eq!(id_of(&tree.0), before);
}

/// An edit of a sample tree.
type Change = fn(&TempTree);

#[test]
fn every_source_change_changes_the_id() {
    let changes: &[(&str, Change)] = &[
        ("one byte of a source", |t| {
            t.write("rust/src/games/take5.rs", "pub fn rows() -> usize { 5 }\n")
        }),
        ("a new source file", |t| {
            t.write("rust/src/games/hundred.rs", "")
        }),
        ("a source renamed", |t| {
            fs::rename(
                t.0.join("rust/src/games/take5.rs"),
                t.0.join("rust/src/games/take6.rs"),
            )
            .unwrap()
        }),
        ("Cargo.lock", |t| t.write("Cargo.lock", "version = 3\n")),
        ("the workspace manifest", |t| {
            t.write("Cargo.toml", "[workspace]\n[profile.release]\nlto = true\n")
        }),
        ("the crate manifest", |t| {
            t.write("rust/Cargo.toml", "[package]\nname = \"y\"\n")
        }),
        ("the build script", |t| {
            t.write("rust/build.rs", "fn main() { }\n")
        }),
        ("the Cargo config removed", |t| {
            fs::remove_file(t.0.join(".cargo/config.toml")).unwrap()
        }),
        ("the Cargo config emptied", |t| {
            t.write(".cargo/config.toml", "")
        }),
    ];
    let base = id_of(&sample("base").0);
    let mut seen = vec![base.clone()];
    for (what, change) in changes {
        let tree = sample("changed");
        change(&tree);
        let id = id_of(&tree.0);
        assert!(!seen.contains(&id), "{what}: the id did not change ({id})");
        seen.push(id);
    }
}

#[test]
fn every_build_setting_changes_the_id() {
    let tree = sample("settings");
    let base = inputs(&tree.0);
    let variants: Vec<(&str, Inputs)> = vec![
        (
            "toolchain",
            Inputs {
                toolchain: "rustc 1.96.0\n".into(),
                ..base.clone()
            },
        ),
        (
            "target",
            Inputs {
                target: "aarch64-unknown-linux-gnu".into(),
                ..base.clone()
            },
        ),
        (
            "profile",
            Inputs {
                profile: "debug".into(),
                ..base.clone()
            },
        ),
        (
            "opt level",
            Inputs {
                opt_level: "0".into(),
                ..base.clone()
            },
        ),
        (
            "debug",
            Inputs {
                debug: "true".into(),
                ..base.clone()
            },
        ),
        (
            "no features",
            Inputs {
                features: vec![],
                ..base.clone()
            },
        ),
        (
            "rustflags",
            Inputs {
                rustflags: String::new(),
                ..base.clone()
            },
        ),
        (
            "a field boundary moved",
            Inputs {
                target: format!("{}r", base.target),
                profile: base.profile[1..].into(),
                ..base.clone()
            },
        ),
    ];
    let mut seen = vec![build_id(&base)];
    for (what, changed) in variants {
        let id = build_id(&changed);
        assert!(!seen.contains(&id), "{what}: the id did not change");
        seen.push(id);
    }
}
