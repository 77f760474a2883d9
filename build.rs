//! Stamps the plugin with its version and source revision so that the Python package can check that
//! the library it loads is the one it was built with.
use std::process::Command;

fn main() {
    let rev = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=APU_GIT_REVISION={rev}");
    println!("cargo:rerun-if-changed=.git/HEAD");
}
