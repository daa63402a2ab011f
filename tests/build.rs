// Binaries and tests of this crate find libtorch at run time through an rpath
// to the libtorch they were linked against (see scripts/libtorch).
fn main() {
    if let Ok(dir) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
}
