fn main() {
    println!("server: see the server issue");
}
