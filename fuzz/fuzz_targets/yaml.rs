//! Fuzz target `yaml`: see `kubegap_core::fuzz::yaml`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kubegap_core::fuzz::yaml(data);
});
