use colmena_core::{Ctx, Result, doctor};

use super::output::Output;

pub async fn run(ctx: &Ctx, out: &Output) -> Result<()> {
    let report = doctor::run(ctx).await?;
    out.emit(&report, |r| {
        println!("Colmena {}", r.info.version);
        println!("data dir:  {}", r.info.data_dir);
        println!(
            "database:  {} (schema {})",
            r.info.database_path, r.info.schema_version
        );
        let s = &r.info.secrets;
        println!("secrets:   {} — {}", s.backend.as_str(), s.location);
        if let Some(note) = &s.note {
            println!("           {note}");
        }
        println!();
        for check in &r.checks {
            let mark = match (check.ok, check.warning) {
                (false, _) => "FAIL",
                (true, true) => "warn",
                (true, false) => "ok  ",
            };
            println!("[{mark}] {}: {}", check.name, check.detail);
        }
    });
    if report.healthy {
        Ok(())
    } else {
        Err(colmena_core::AppError::precondition(
            "some checks failed (see above)",
        ))
    }
}
