//! Unit tests of the nginx parser, includes and effective values.
