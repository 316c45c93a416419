//! Fuzz target `yaml_scanner`: see `kubegap_core::fuzz::yaml_scanner`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kubegap_core::fuzz::yaml_scanner(data);
});
