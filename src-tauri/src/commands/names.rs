// The IPC commands of the app, by name. One list feeds the ACL manifest
// (build.rs includes this file) and the tests that check the capability file
// and the generated bindings agree with it.

pub const COMMANDS: &[&str] = &[
    "workspace_info",
    "provider_kinds",
    "list_providers",
    "create_provider",
    "update_provider",
    "set_provider_enabled",
    "delete_provider",
    "list_models",
    "create_model",
    "set_model_enabled",
    "set_model_label",
    "rename_model",
    "delete_model",
    "agents_using_model",
];
