//! What `colmena doctor` and the Settings screen report about a workspace:
//! where it lives, the state of its store, and which secret backend holds the
//! master key (never a silent fallback: the reason is always shown).

use serde::{Deserialize, Serialize};

use crate::ctx::Ctx;
use crate::error::Result;
use crate::secrets::SecretBackendStatus;
use crate::store::{migrations, schema_version};

/// Facts about the open workspace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceInfo {
    pub version: String,
    pub data_dir: String,
    pub database_path: String,
    pub schema_version: u32,
    pub secrets: SecretBackendStatus,
}

/// One check of the doctor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    pub name: String,
    pub ok: bool,
    /// Worth knowing, not a failure: `ok` stays true and the report
    /// healthy (Colmena running as root).
    #[serde(default)]
    pub warning: bool,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct DoctorReport {
    pub info: WorkspaceInfo,
    pub checks: Vec<Check>,
    /// True when every check passed.
    pub healthy: bool,
}

pub async fn workspace_info(ctx: &Ctx) -> Result<WorkspaceInfo> {
    let version = ctx.store().read(schema_version).await?;
    Ok(WorkspaceInfo {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        data_dir: ctx.data_dir().display().to_string(),
        database_path: ctx.store().path().display().to_string(),
        schema_version: u32::try_from(version).unwrap_or(0),
        secrets: ctx.vault().status().clone(),
    })
}

/// How programs run by agents are confined here (Landlock, bubblewrap, or
/// not at all — then `cli_exec` and the git tools refuse to run), and
/// whether the launcher they go through is installed.
fn sandbox_check() -> Check {
    use crate::sandbox::{detect, launcher};
    let found = detect().and_then(|m| launcher().map(|l| (m, l)));
    match found {
        Ok((mechanism, launcher)) => Check {
            name: "sandbox".into(),
            ok: true,
            warning: false,
            detail: format!(
                "programs run by agents are confined with {} (launcher {}); their network is \
                 a namespace of its own whose only way out is Colmena's proxy, with the \
                 agent's address policy",
                mechanism.describe(),
                launcher.display()
            ),
        },
        Err(e) => Check {
            name: "sandbox".into(),
            ok: false,
            warning: false,
            detail: e.message,
        },
    }
}

/// Running as root is allowed (containers, servers) but worth a warning:
/// programs agents run are moved to another user, everything else Colmena
/// does keeps root's powers. `None` when not root.
fn root_check() -> Option<Check> {
    let user = crate::sandbox::program_user()?;
    Some(Check {
        name: "user".into(),
        ok: true,
        warning: true,
        detail: format!(
            "Colmena runs as root; programs agents run are started as {} (uid {}) without \
             capabilities, but the rest of Colmena keeps root's powers: run it as an ordinary \
             user where you can",
            user.name, user.uid
        ),
    })
}

/// Runs every check; a failing check is reported, not returned as an error.
pub async fn run(ctx: &Ctx) -> Result<DoctorReport> {
    let info = workspace_info(ctx).await?;
    let mut checks = Vec::new();

    let integrity = ctx
        .store()
        .read(|c| Ok(c.query_row("PRAGMA quick_check", [], |r| r.get::<_, String>(0))?))
        .await;
    checks.push(match integrity {
        Ok(result) => Check {
            name: "store integrity".into(),
            ok: result == "ok",
            warning: false,
            detail: result,
        },
        Err(e) => Check {
            name: "store integrity".into(),
            ok: false,
            warning: false,
            detail: e.message,
        },
    });

    let pending = ctx
        .store()
        .read(|c| Ok(migrations().pending_migrations(c)?))
        .await?;
    checks.push(Check {
        name: "schema".into(),
        ok: pending == 0,
        warning: false,
        detail: format!(
            "version {}, {pending} migrations pending",
            info.schema_version
        ),
    });

    let secrets = &info.secrets;
    checks.push(Check {
        name: "secrets".into(),
        ok: secrets.ready,
        warning: false,
        detail: format!(
            "{} at {}{}",
            secrets.backend.as_str(),
            secrets.location,
            secrets
                .note
                .as_deref()
                .map(|n| format!(" — {n}"))
                .unwrap_or_default()
        ),
    });

    checks.push(sandbox_check());
    checks.extend(root_check());

    // Warnings are `ok`: they never make the report unhealthy.
    let healthy = checks.iter().all(|c| c.ok);
    Ok(DoctorReport {
        info,
        checks,
        healthy,
    })
}
