//! Fuzz target `config`: see `kubegap_core::fuzz::config`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kubegap_core::fuzz::config(data);
});
