//! Fuzz target `haproxy`: see `kubegap_core::fuzz::haproxy`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kubegap_core::fuzz::haproxy(data);
});
