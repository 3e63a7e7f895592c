//! The server binary: every setting is a flag with an environment variable (`server --help`).

/// mimalloc instead of glibc's malloc: under load a third of the server's CPU samples were glibc's
/// malloc/free (chunk coalescing across threads); see docs/performance.md, "Measured reasons".
#[global_allocator]
static ALLOCATOR: server::MiMalloc = server::MiMalloc;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match server::main_with_args().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("server: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
