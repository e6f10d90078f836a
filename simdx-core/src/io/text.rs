//! Shared machinery of the text readers: opening a file (memory-mapped), splitting it into
//! newline-aligned chunks parsed in parallel, and fast number parsing with line-numbered errors.
