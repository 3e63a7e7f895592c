//! `loadgen --help`: see the crate documentation and docs/performance.md.

use clap::Parser;

/// The server's allocator (docs/performance.md, section 8): glibc's malloc and free were ~7 % of loadgen's CPU
/// samples under load.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
