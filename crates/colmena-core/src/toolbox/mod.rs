//! The tool box: everything between a model's tool call and its result,
//! above the runtime that drives the run and the operations the tools
//! call (`contracts/`).
//!
//! - [`dispatch`]: checks a call and sends it on; its `Toolbox` is the
//!   workspace's `ToolRunner` (the port in `runs::context`), installed by
//!   the workspace as it opens, so the runtime names none of this;
//! - [`gate`]: the permission gate every call passes;
//! - [`builtins`]: the code behind the built-in tools (delegation goes
//!   back down to the runtime, the rest to the operations);
//! - [`catalog`]: the built-in tools as a model sees them, with the
//!   operations' contracts as their schemas.

pub(crate) mod builtins;
pub mod catalog;
pub(crate) mod dispatch;
pub(crate) mod gate;
