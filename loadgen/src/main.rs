//! `loadgen --help`: see the crate documentation and docs/performance.md.

use clap::Parser;

/// The server's allocator (docs/performance.md, "Measured reasons"): glibc's malloc and free were ~7 % of
/// loadgen's CPU samples under load.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let opts = loadgen::Options::parse();
    let json = opts.json;
    let runtime = if opts.threads == 1 {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(opts.threads.into())
            .enable_all()
            .build()
    };
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("loadgen: cannot start its runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(loadgen::run(opts)) {
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
