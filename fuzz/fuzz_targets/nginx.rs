//! Fuzz target `nginx`: see `kubegap_core::fuzz::nginx`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kubegap_core::fuzz::nginx(data);
});
