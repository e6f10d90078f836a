//! Every way a graph comes in: the text and binary readers and writers (round trips, hand-checked
//! files, damaged and crafted files, random mutations), the parallel builder, and the generators.

mod bad_input;
mod binary_format;
mod builder;
mod generators;
mod reader_mutations;
mod text_formats;
