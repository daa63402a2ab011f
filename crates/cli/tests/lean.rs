//! `hfarm` starts without libtorch; `hfarm-torch` loads it. The dynamic
//! loader says which libraries it looked for (`LD_DEBUG=libs`, glibc), so
//! this checks what a start really loads, whatever the linker's reasons.
//! The second binary is the control: the check can see libtorch when it is
//! there.

use std::process::Command;

/// The shared libraries the loader looked for while starting `exe --version`.
fn libraries_loaded(exe: &str) -> Vec<String> {
    let out = Command::new(exe).arg("--version").env("LD_DEBUG", "libs").output().expect("run the binary");
    assert!(out.status.success(), "{exe} --version: {}", String::from_utf8_lossy(&out.stderr));
    let log = String::from_utf8_lossy(&out.stderr);
    let found: Vec<String> = log
        .lines()
        .filter_map(|l| l.split("find library=").nth(1))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_string)
        .collect();
    assert!(found.iter().any(|l| l.starts_with("libc.so")), "no loader log for {exe} (is this glibc?):\n{log}");
    found
}

fn is_torch(lib: &str) -> bool {
    lib.starts_with("libtorch") || lib.starts_with("libc10")
}

#[test]
fn hfarm_starts_without_libtorch() {
    let lean = libraries_loaded(env!("CARGO_BIN_EXE_hfarm"));
    let torch: Vec<&String> = lean.iter().filter(|l| is_torch(l)).collect();
    assert!(
        torch.is_empty(),
        "hfarm loads {torch:?}: something in the hfarm_cli library names the worker, the learner or tch \
         (see crates/cli/src/lib.rs); the libraries it loads: {lean:?}"
    );
}

#[test]
fn hfarm_torch_loads_libtorch() {
    let linked = libraries_loaded(env!("CARGO_BIN_EXE_hfarm-torch"));
    assert!(linked.iter().any(|l| l.starts_with("libtorch_cpu")), "{linked:?}");
}
