"""What is installed: the package version and the engine's build id.

The build id is a hash of the Rust build (its sources, ``Cargo.lock``, the
compiler, target, profile, features and flags; see ``rust/build_id.rs``). Two
builds of the same sources with the same toolchain have the same id, so two
processes that report the same id run the same engine code.
"""

from __future__ import annotations

import platform

from . import _core

__version__ = "0.1.0"


def build_id() -> str:
    """The engine's build id: 32 lowercase hex digits."""
    return str(_core.BUILD_ID)


def version_text() -> str:
    """What ``cardref --version`` prints: package version, engine build id, Python."""
    return (f"cardref {__version__} (engine build {build_id()}; "
            f"{platform.python_implementation()} {platform.python_version()})")
