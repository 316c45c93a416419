//! Fuzz target `nginx_includes`: see `kubegap_core::fuzz::nginx_includes`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kubegap_core::fuzz::nginx_includes(data);
});
