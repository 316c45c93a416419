//! Fuzz target `lint_one`: see `kubegap_core::fuzz::lint_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kubegap_core::fuzz::lint_one(data);
});
