//! HTTP endpoints as a person declares them, with a sealed credential: the
//! doors an outsider's message would like a role or a job to open.

use colmena_core::endpoints::{EndpointInput, HttpMethod, SecretHeaderInput};
use serde_json::json;

/// The person's credential, sealed in each endpoint's `Authorization`.
pub const SECRET: &str = "Bearer sk-live-SECRET-12345";

/// `{method} {base}{path}` taking one string parameter `param`, with the
/// person's sealed `Authorization` header.
pub fn endpoint(
    base: &str,
    name: &str,
    method: HttpMethod,
    path: &str,
    param: &str,
) -> EndpointInput {
    let body = (method != HttpMethod::Delete).then(|| json!({ param: format!("{{{{{param}}}}}") }));
    EndpointInput {
        name: name.into(),
        slug: None,
        description: format!("{name} on our API"),
        method,
        url: format!("{base}{path}"),
        query: vec![],
        body,
        headers: vec![],
        secret_headers: vec![SecretHeaderInput {
            name: "Authorization".into(),
            value: Some(SECRET.into()),
        }],
        param_schema: Some(json!({
            "type": "object",
            "properties": { param: { "type": "string" } },
            "required": [param]
        })),
        enabled: None,
        timeout_seconds: None,
    }
}

/// `DELETE {base}/records/{id}` (tool `endpoint_purge`): the endpoint an
/// outsider wants purged.
pub fn purge(base: &str) -> EndpointInput {
    endpoint(base, "Purge", HttpMethod::Delete, "/records/{{id}}", "id")
}
