//! The points-to analysis that picks which access sites to instrument.
//!
//! **Its one job:** read bytecode (the program and the JDK from `jmods/`), solve Andersen-style
//! inclusion constraints with an on-the-fly call graph, name the variables, and say which
//! variables each access site may touch.
//!
//! **Architecture invariant:** never runs program code, and never under-approximates: a site it
//! cannot resolve may touch every variable.
