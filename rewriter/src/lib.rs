//! The class-file rewriter.
//!
//! **Its one job:** turn class files and jars into instrumented ones the JVM accepts, calling the
//! hooks of `java_harness::hooks` at exactly the instrumented places, and write the site table.
//!
//! **Architecture invariant:** knows nothing about strategies or the agent; it places calls.
