//! `loadgen --help`: see the crate documentation and docs/performance.md.

use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let opts = loadgen::Options::parse();
    let json = opts.json;
    match loadgen::run(opts).await {
        Ok(report) => {
            if json {
                println!("{}", report.to_json());
            } else {
                print!("{report}");
            }
            if report.errors == 0 {
                std::process::ExitCode::SUCCESS
            } else {
                std::process::ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("loadgen: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
