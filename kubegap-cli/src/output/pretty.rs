//! A `serde::Serializer` writing JSON through a `serde_json` [`Formatter`], as
//! `serde_json::Serializer` does, with one difference: strings are scanned eight bytes at a time
//! for the bytes JSON escapes (`"`, `\` and the controls below 0x20).
//!
//! `serde_json` looks every byte of a string up in a table (about seven instructions a byte):
//! writing 75,000 findings of a 300k-line haproxy.cfg, 93 MB of JSON, that loop was 11.5 % of
//! the run's instructions. Everything else is the formatter's: the layout, the escapes
//! themselves ([`Formatter::write_char_escape`]) and the numbers, so the bytes are
//! `serde_json`'s (the tests compare both on every kind of serde value and on every byte value
//! at each place of a word and of a string's last bytes, and the word test with the byte-by-byte
//! definition on random words).

use std::io;

use serde::ser;
use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter};

/// Writes `value` as JSON into `out` through `formatter`.
pub fn write<F: Formatter>(
    out: &mut Vec<u8>,
    formatter: F,
    value: &impl Serialize,
) -> io::Result<()> {
    let mut ser = Pretty { out, f: formatter };
    value.serialize(&mut ser).map_err(|e| e.0)
}

/// The serializer: the output and the formatter that lays it out.
struct Pretty<'o, F> {
    out: &'o mut Vec<u8>,
    f: F,
}

/// An error of a value's `Serialize` (writing into memory does not fail).
#[derive(Debug)]
pub struct Error(io::Error);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Error {
        Error(io::Error::other(msg.to_string()))
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Error {
        Error(e)
    }
}

type Result<T = ()> = std::result::Result<T, Error>;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The bytes of `w` (little-endian) that JSON escapes, as their high bits: below 0x20 (a byte
/// of 0x80 or more is never flagged, its complement's high bit being clear), `"` or `\` (a zero
/// byte of `w` XOR the character). A borrow may flag a byte above a flagged one, never one
/// below: the lowest flag is the first such byte, and none is flagged when there is none.
fn escaped_bytes(w: u64) -> u64 {
    let below_space = w.wrapping_sub(ONES * 0x20) & !w;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v;
    let quote = zero(w ^ (ONES * u64::from(b'"')));
    let backslash = zero(w ^ (ONES * u64::from(b'\\')));
    (below_space | quote | backslash) & HIGHS
}

/// The first byte at or after `from` that JSON escapes, eight bytes a step (the last few
/// padded with spaces, which it does not).
fn next_escaped(bytes: &[u8], from: usize) -> Option<usize> {
    let tail = bytes.get(from..)?;
    let mut chunks = tail.chunks_exact(8);
    let mut at = from;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let flags = escaped_bytes(u64::from_le_bytes(word));
        if flags != 0 {
            return Some(at + (flags.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = chunks.remainder();
    let mut word = [b' '; 8];
    word[..rest.len()].copy_from_slice(rest);
    let flags = escaped_bytes(u64::from_le_bytes(word));
    (flags != 0).then(|| at + (flags.trailing_zeros() / 8) as usize)
}

/// The escape of a byte JSON escapes (`serde_json`'s: short forms where JSON has them).
fn escape_of(byte: u8) -> Option<CharEscape> {
    Some(match byte {
        b'"' => CharEscape::Quote,
        b'\\' => CharEscape::ReverseSolidus,
        0x08 => CharEscape::Backspace,
        0x09 => CharEscape::Tab,
        0x0a => CharEscape::LineFeed,
        0x0c => CharEscape::FormFeed,
        0x0d => CharEscape::CarriageReturn,
        0x00..=0x1f => CharEscape::AsciiControl(byte),
        _ => return None,
    })
}

impl<F: Formatter> Pretty<'_, F> {
    /// A JSON string: the runs of bytes that need no escape written as they are.
    fn string(&mut self, s: &str) -> Result {
        self.f.begin_string(self.out)?;
        let bytes = s.as_bytes();
        let mut run = 0;
        while let Some(i) = next_escaped(bytes, run) {
            // `run..i` ends before an ASCII byte: a whole number of characters.
            if run < i {
                self.f.write_string_fragment(self.out, &s[run..i])?;
            }
            if let Some(escape) = bytes.get(i).copied().and_then(escape_of) {
                self.f.write_char_escape(self.out, escape)?;
            }
            run = i + 1;
        }
        if run < bytes.len() {
            self.f.write_string_fragment(self.out, &s[run..])?;
        }
        self.f.end_string(self.out)?;
        Ok(())
    }

    /// `{"variant": ` of an enum variant with data.
    fn open_variant(&mut self, variant: &str) -> Result {
        self.f.begin_object(self.out)?;
        self.f.begin_object_key(self.out, true)?;
        self.string(variant)?;
        self.f.end_object_key(self.out)?;
        self.f.begin_object_value(self.out)?;
        Ok(())
    }

    /// The end of [`Pretty::open_variant`]'s object.
    fn close_variant(&mut self) -> Result {
        self.f.end_object_value(self.out)?;
        self.f.end_object(self.out)?;
        Ok(())
    }

    /// `[` or `{` (the formatter's `begin`), closed at once (its `end`) when declared empty,
    /// as `serde_json` does.
    fn open(&mut self, len: Option<usize>, begin: Call<F>, end: Call<F>) -> Result<State> {
        begin(&mut self.f, self.out)?;
        if len == Some(0) {
            end(&mut self.f, self.out)?;
            return Ok(State::Empty);
        }
        Ok(State::First)
    }

    fn open_array(&mut self, len: Option<usize>) -> Result<State> {
        self.open(len, F::begin_array, F::end_array)
    }

    fn open_object(&mut self, len: Option<usize>) -> Result<State> {
        self.open(len, F::begin_object, F::end_object)
    }

    /// A value between the formatter's `begin_string` and `end_string` (an object key that is
    /// not a string).
    fn quoted(&mut self, write: impl FnOnce(&mut F, &mut Vec<u8>) -> io::Result<()>) -> Result {
        self.f.begin_string(self.out)?;
        write(&mut self.f, self.out)?;
        self.f.end_string(self.out)?;
        Ok(())
    }
}

/// A formatter method that writes without arguments (`begin_array`, `end_object`, ...).
type Call<F> = fn(&mut F, &mut Vec<u8>) -> io::Result<()>;

/// Where a compound is: closed already (declared empty), before its first item, or after one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Empty,
    First,
    Rest,
}

/// An array or object being written; `variant` when it is the value of a variant's object.
struct Compound<'a, 'o, F> {
    ser: &'a mut Pretty<'o, F>,
    state: State,
    variant: bool,
}

impl<F: Formatter> Compound<'_, '_, F> {
    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
        self.ser
            .f
            .begin_array_value(self.ser.out, self.state == State::First)?;
        value.serialize(&mut *self.ser)?;
        self.ser.f.end_array_value(self.ser.out)?;
        self.state = State::Rest;
        Ok(())
    }

    /// `]` or `}` (the formatter's `end`) unless closed already, then the variant's object.
    fn close(self, end: Call<F>) -> Result {
        if self.state != State::Empty {
            end(&mut self.ser.f, self.ser.out)?;
        }
        if self.variant {
            self.ser.close_variant()?;
        }
        Ok(())
    }

    fn key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result {
        self.ser
            .f
            .begin_object_key(self.ser.out, self.state == State::First)?;
        key.serialize(KeySerializer {
            ser: &mut *self.ser,
        })?;
        self.ser.f.end_object_key(self.ser.out)?;
        self.state = State::Rest;
        Ok(())
    }

    fn value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
        self.ser.f.begin_object_value(self.ser.out)?;
        value.serialize(&mut *self.ser)?;
        self.ser.f.end_object_value(self.ser.out)?;
        Ok(())
    }
}

macro_rules! numbers {
    ($($method:ident $ty:ty => $write:ident;)*) => {
        $(fn $method(self, v: $ty) -> Result {
            self.f.$write(self.out, v)?;
            Ok(())
        })*
    };
}

impl<'a, 'o, F: Formatter> ser::Serializer for &'a mut Pretty<'o, F> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, 'o, F>;
    type SerializeTuple = Compound<'a, 'o, F>;
    type SerializeTupleStruct = Compound<'a, 'o, F>;
    type SerializeTupleVariant = Compound<'a, 'o, F>;
    type SerializeMap = Compound<'a, 'o, F>;
    type SerializeStruct = Compound<'a, 'o, F>;
    type SerializeStructVariant = Compound<'a, 'o, F>;

    numbers! {
        serialize_bool bool => write_bool;
        serialize_i8 i8 => write_i8;
        serialize_i16 i16 => write_i16;
        serialize_i32 i32 => write_i32;
        serialize_i64 i64 => write_i64;
        serialize_i128 i128 => write_i128;
        serialize_u8 u8 => write_u8;
        serialize_u16 u16 => write_u16;
        serialize_u32 u32 => write_u32;
        serialize_u64 u64 => write_u64;
        serialize_u128 u128 => write_u128;
    }

    fn serialize_f32(self, v: f32) -> Result {
        if v.is_finite() {
            self.f.write_f32(self.out, v)?;
        } else {
            self.f.write_null(self.out)?;
        }
        Ok(())
    }

    fn serialize_f64(self, v: f64) -> Result {
        if v.is_finite() {
            self.f.write_f64(self.out, v)?;
        } else {
            self.f.write_null(self.out)?;
        }
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result {
        self.string(v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, v: &str) -> Result {
        self.string(v)
    }

    fn serialize_bytes(self, v: &[u8]) -> Result {
        self.f.write_byte_array(self.out, v)?;
        Ok(())
    }

    fn serialize_none(self) -> Result {
        self.serialize_unit()
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result {
        self.f.write_null(self.out)?;
        Ok(())
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result {
        self.serialize_unit()
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result {
        self.string(variant)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result {
        self.open_variant(variant)?;
        value.serialize(&mut *self)?;
        self.close_variant()
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq> {
        let state = self.open_array(len)?;
        Ok(Compound {
            ser: self,
            state,
            variant: false,
        })
    }

    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        self.open_variant(variant)?;
        let state = self.open_array(Some(len))?;
        Ok(Compound {
            ser: self,
            state,
            variant: true,
        })
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap> {
        let state = self.open_object(len)?;
        Ok(Compound {
            ser: self,
            state,
            variant: false,
        })
    }

    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Self::SerializeStruct> {
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        self.open_variant(variant)?;
        let state = self.open_object(Some(len))?;
        Ok(Compound {
            ser: self,
            state,
            variant: true,
        })
    }
}

/// The array-like compounds: each item through [`Compound::element`], closed by
/// [`Compound::close`] (serde names the item method of some `serialize_element`, of the
/// others `serialize_field`).
macro_rules! array_like {
    ($($trait:ident $method:ident;)*) => {
        $(impl<F: Formatter> ser::$trait for Compound<'_, '_, F> {
            type Ok = ();
            type Error = Error;

            fn $method<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
                self.element(value)
            }

            fn end(self) -> Result {
                self.close(F::end_array)
            }
        })*
    };
}

array_like! {
    SerializeSeq serialize_element;
    SerializeTuple serialize_element;
    SerializeTupleStruct serialize_field;
    SerializeTupleVariant serialize_field;
}

/// The structs: each field a key and its value, closed by [`Compound::close`].
macro_rules! struct_like {
    ($($trait:ident;)*) => {
        $(impl<F: Formatter> ser::$trait for Compound<'_, '_, F> {
            type Ok = ();
            type Error = Error;

            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result {
                self.key(key)?;
                self.value(value)
            }

            fn end(self) -> Result {
                self.close(F::end_object)
            }
        })*
    };
}

struct_like! {
    SerializeStruct;
    SerializeStructVariant;
}

impl<F: Formatter> ser::SerializeMap for Compound<'_, '_, F> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result {
        self.key(key)
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
        self.value(value)
    }

    fn end(self) -> Result {
        self.close(F::end_object)
    }
}

/// An object's key: a string, or a finite number, a bool or a char written as one (as
/// `serde_json` writes them); any other key is an error.
struct KeySerializer<'a, 'o, F> {
    ser: &'a mut Pretty<'o, F>,
}

fn key_must_be_a_string() -> Error {
    Error(io::Error::other("key must be a string"))
}

macro_rules! quoted_numbers {
    ($($method:ident $ty:ty => $write:ident;)*) => {
        $(fn $method(self, v: $ty) -> Result {
            self.ser.quoted(|f, out| f.$write(out, v))
        })*
    };
}

impl<F: Formatter> ser::Serializer for KeySerializer<'_, '_, F> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    quoted_numbers! {
        serialize_i8 i8 => write_i8;
        serialize_i16 i16 => write_i16;
        serialize_i32 i32 => write_i32;
        serialize_i64 i64 => write_i64;
        serialize_i128 i128 => write_i128;
        serialize_u8 u8 => write_u8;
        serialize_u16 u16 => write_u16;
        serialize_u32 u32 => write_u32;
        serialize_u64 u64 => write_u64;
        serialize_u128 u128 => write_u128;
    }

    fn serialize_str(self, v: &str) -> Result {
        self.ser.string(v)
    }

    fn serialize_char(self, v: char) -> Result {
        self.ser.string(v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_bool(self, v: bool) -> Result {
        self.ser.quoted(|f, out| f.write_bool(out, v))
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result {
        self.ser.string(variant)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result {
        value.serialize(self)
    }

    fn serialize_f32(self, v: f32) -> Result {
        if !v.is_finite() {
            return Err(Error(io::Error::other("float key must be finite")));
        }
        self.ser.quoted(|f, out| f.write_f32(out, v))
    }

    fn serialize_f64(self, v: f64) -> Result {
        if !v.is_finite() {
            return Err(Error(io::Error::other("float key must be finite")));
        }
        self.ser.quoted(|f, out| f.write_f64(out, v))
    }

    fn serialize_bytes(self, _: &[u8]) -> Result {
        Err(key_must_be_a_string())
    }

    fn serialize_none(self) -> Result {
        Err(key_must_be_a_string())
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result {
        Err(key_must_be_a_string())
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result {
        Err(key_must_be_a_string())
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result {
        Err(key_must_be_a_string())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(key_must_be_a_string())
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(key_must_be_a_string())
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(key_must_be_a_string())
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(key_must_be_a_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::ser::{CompactFormatter, PrettyFormatter};

    fn ours(value: &impl Serialize) -> String {
        let mut out = Vec::new();
        write(&mut out, PrettyFormatter::new(), value).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Every byte value that JSON escapes or not, alone and at each place of a word and the
    /// bytes after the last whole word, among ASCII and multi-byte characters: `serde_json`'s
    /// bytes, compact and pretty.
    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut texts = vec![String::new()];
        for c in (0u32..0x80).chain([0xa0, 0x7ff, 0x2028, 0xfeff, 0x1f600]) {
            let c = char::from_u32(c).unwrap();
            texts.push(c.to_string());
            for at in [0, 1, 7, 8, 9, 15, 16, 17, 20] {
                let mut text: String = "ab€défghijklmnopq".chars().take(at).collect();
                text.push(c);
                text.push_str("xyz\u{1f600}0123456789");
                texts.push(text);
            }
        }
        texts.push("\"\\\u{0}\u{1f}\u{7f}\n\r\t\u{8}\u{c}".repeat(3));
        for text in &texts {
            assert_eq!(
                ours(text),
                serde_json::to_string_pretty(text).unwrap(),
                "{text:?}"
            );
            let mut compact = Vec::new();
            write(&mut compact, CompactFormatter, text).unwrap();
            assert_eq!(compact, serde_json::to_vec(text).unwrap(), "{text:?}");
        }
    }

    /// Each kind of value serde has: `serde_json`'s bytes.
    #[test]
    fn every_kind_of_value_is_written_as_serde_json_writes_it() {
        #[derive(Serialize)]
        enum E {
            Unit,
            New(u8),
            Tuple(i32, &'static str),
            EmptyTuple(),
            Struct { a: Option<u8>, b: Vec<u8> },
            EmptyStruct {},
        }
        #[derive(Serialize)]
        struct Unit;
        #[derive(Serialize)]
        struct New(&'static str);
        #[derive(Serialize)]
        struct Tuple(u8, bool);
        #[derive(Serialize)]
        struct Fields {
            #[serde(skip_serializing_if = "Option::is_none")]
            skipped: Option<u8>,
            kept: Option<u8>,
        }
        #[derive(Serialize)]
        struct Skipped {
            #[serde(skip_serializing_if = "Option::is_none")]
            skipped: Option<u8>,
        }
        #[derive(Serialize)]
        struct All {
            ints: (i8, i16, i32, i64, i128, u8, u16, u32, u64, u128),
            floats: (f32, f64, f64, f64, f64),
            chars: (char, char, bool, bool, ()),
            bytes: serde_bytes_like::Bytes,
            enums: Vec<E>,
            unit: Unit,
            new: New,
            tuple: Tuple,
            fields: Fields,
            skipped: Skipped,
            map: std::collections::BTreeMap<i32, Vec<u8>>,
            bool_keys: std::collections::BTreeMap<bool, u8>,
            option_keys: std::collections::BTreeMap<Option<u8>, u8>,
            char_keys: std::collections::BTreeMap<char, u8>,
            empty: std::collections::BTreeMap<String, u8>,
            value: serde_json::Value,
        }
        mod serde_bytes_like {
            pub struct Bytes(pub &'static [u8]);
            impl serde::Serialize for Bytes {
                fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    s.serialize_bytes(self.0)
                }
            }
        }
        let all = All {
            ints: (
                -8,
                -16,
                -32,
                i64::MIN,
                i128::MIN,
                8,
                16,
                32,
                u64::MAX,
                u128::MAX,
            ),
            floats: (1.5, 0.1, f64::NAN, f64::INFINITY, -0.0),
            chars: ('"', 'é', true, false, ()),
            bytes: serde_bytes_like::Bytes(&[0, 1, 255]),
            enums: vec![
                E::Unit,
                E::New(1),
                E::Tuple(-1, "t\n"),
                E::EmptyTuple(),
                E::Struct { a: None, b: vec![] },
                E::EmptyStruct {},
            ],
            unit: Unit,
            new: New("n"),
            tuple: Tuple(1, true),
            fields: Fields {
                skipped: None,
                kept: None,
            },
            skipped: Skipped { skipped: None },
            map: [(-1, vec![1]), (2, vec![])].into_iter().collect(),
            bool_keys: [(true, 1), (false, 0)].into_iter().collect(),
            option_keys: [(Some(4), 1)].into_iter().collect(),
            char_keys: [('k', 1)].into_iter().collect(),
            empty: Default::default(),
            value: serde_json::json!({"a": [1, 2.5, null, {}, [], "x\u{1}"], "b": {"c": {}}}),
        };
        assert_eq!(ours(&all), serde_json::to_string_pretty(&all).unwrap());
    }

    /// Keys that are not strings, numbers, bools or chars are an error, as in `serde_json`.
    #[test]
    fn other_keys_are_errors() {
        let map: std::collections::BTreeMap<(u8, u8), u8> = [((1, 2), 3)].into_iter().collect();
        let mut out = Vec::new();
        let err = write(&mut out, PrettyFormatter::new(), &map).unwrap_err();
        assert!(err.to_string().contains("key must be a string"), "{err}");
        assert!(serde_json::to_string(&map).is_err());
        let floats = [(1.5f64, 1u8)];
        let mut out = Vec::new();
        write(&mut out, PrettyFormatter::new(), &serde_json_map(&floats)).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string_pretty(&serde_json_map(&floats)).unwrap()
        );
        let nan = [(f64::NAN, 1u8)];
        assert!(write(
            &mut Vec::new(),
            PrettyFormatter::new(),
            &serde_json_map(&nan)
        )
        .is_err());
        assert!(serde_json::to_string(&serde_json_map(&nan)).is_err());
    }

    /// A map of float keys (no `Ord` for floats: written as a sequence of entries).
    fn serde_json_map(entries: &[(f64, u8)]) -> impl Serialize + '_ {
        struct Map<'a>(&'a [(f64, u8)]);
        impl Serialize for Map<'_> {
            fn serialize<S: serde::Serializer>(
                &self,
                s: S,
            ) -> std::result::Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut map = s.serialize_map(Some(self.0.len()))?;
                for (k, v) in self.0 {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
        Map(entries)
    }

    /// The word test against the byte-by-byte definition: its lowest flag is the first byte
    /// JSON escapes, on every byte value at each position (with the bytes around it below,
    /// equal to and above it) and on words of random bytes.
    #[test]
    fn the_word_test_finds_the_first_escaped_byte() {
        let escaped = |b: u8| b < 0x20 || b == b'"' || b == b'\\';
        let check = |word: [u8; 8]| {
            let flags = escaped_bytes(u64::from_le_bytes(word));
            let first = word.iter().position(|&b| escaped(b));
            assert_eq!(
                (flags != 0).then(|| flags.trailing_zeros() as usize / 8),
                first,
                "{word:?}"
            );
        };
        for b in 0..=255u8 {
            for at in 0..8 {
                for fill in [b'a', 0xff, 0x20, 0x00, b'"', b'\\', 0x1f, 0x21, 0x80] {
                    let mut word = [fill; 8];
                    word[at] = b;
                    check(word);
                }
            }
        }
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            check(state.to_le_bytes());
            // Bytes mostly printable, as in text.
            check((state & 0x3f3f_3f3f_3f3f_3f3f | 0x2020_2020_2020_2020).to_le_bytes());
        }
    }
}
