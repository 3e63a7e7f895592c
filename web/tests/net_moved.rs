//! The client's connection in cluster mode, run with Node over the real modules (`tests/net/moved.mjs`, with a fake
//! WebSocket): a `moved` refusal drops the connection and reconnects, waiting longer after each refusal in a row and
//! as briefly as before once the seat is taken up again; and a list names the viewer in small letters after the
//! first name ("Bo y tú").

use std::path::PathBuf;
use std::process::Command;

fn find_program(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    })
}

#[test]
fn a_moved_refusal_reconnects_with_a_growing_wait() {
    let Some(node) = find_program("node") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must provide node for the connection check"
        );
        eprintln!("node is not installed: the connection check is skipped");
        return;
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(node)
        .arg(root.join("tests/net/moved.mjs"))
        .arg(root.join("static/js"))
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: serde_json::Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("the check prints its report ({e}): {stdout}\n{stderr}"));
    let problems = report["problems"].as_array().expect("a list of problems");
    assert!(
        problems.is_empty() && output.status.success(),
        "the connection misbehaves:\n{}",
        problems
            .iter()
            .map(|p| p.as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
