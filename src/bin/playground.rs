//! The browser entry point (`trunk serve` builds this for wasm32). Natively it only points at the CLI.

#[cfg(target_arch = "wasm32")]
fn main() {
    outbox_playground::ui::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the playground runs in the browser: `trunk serve`; natively, use `cargo run --bin experiments -- --check`");
}
