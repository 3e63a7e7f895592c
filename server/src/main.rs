//! The server binary: every setting is a flag with an environment variable (`server --help`).

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
