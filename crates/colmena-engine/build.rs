//! Windows with the GNU toolchain (mingw: the cross-build the test command
//! checks from Linux and `scripts/wine-tests.sh` runs under Wine): ggml
//! names its static libraries without the `lib` prefix there (`ggml.a`,
//! its CMake drops the prefix on every Windows), and llama-cpp-sys-2's build
//! script looks only for `lib*.a`, so nothing links them and every ggml
//! symbol is missing. They are linked here, by their file names, whole (the
//! link order then does not matter). MSVC (the release builds) and every
//! other system need nothing.

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    if !target.ends_with("-windows-gnu") {
        return;
    }
    let Ok(root) = std::env::var("DEP_LLAMA_ROOT") else {
        println!("cargo:warning=llama-cpp-sys-2 did not say where it built llama.cpp");
        return;
    };
    let names = ["ggml.a", "ggml-base.a", "ggml-cpu.a"];
    for dir in ["lib", "lib64"] {
        let lib = Path::new(&root).join(dir);
        if names.iter().all(|name| lib.join(name).is_file()) {
            println!("cargo:rustc-link-search=native={}", lib.display());
            for name in names {
                println!("cargo:rustc-link-lib=static:-bundle,+whole-archive,+verbatim={name}");
            }
            return;
        }
    }
    println!("cargo:warning=ggml's libraries are not in {root}/lib: the link will miss them");
}
