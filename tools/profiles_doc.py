"""Write docs/profiles.md from the profile tables of the Rust core. Run
`python tools/profiles_doc.py` after changing crates/wtcp-engine/src/scenario/profile.rs;
a test checks the file is current."""

from pathlib import Path

from wtcp.profiles import markdown

TARGET = Path(__file__).resolve().parent.parent / "docs" / "profiles.md"

if __name__ == "__main__":
    TARGET.write_text(markdown(), encoding="utf-8")
    print(f"wrote {TARGET}")
