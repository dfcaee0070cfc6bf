import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { KeyRound, ShieldAlert, ShieldCheck } from "lucide-react";

import { Banner } from "../../components/Banner";
import { Spinner } from "../../components/Spinner";
import { workspaceQuery } from "../providers/queries";
import { BackupsCard } from "./BackupsCard";

export function DataSection() {
  const { t } = useTranslation();
  const info = useQuery(workspaceQuery);
  return (
    <section className="section" data-testid="section-data">
      <header className="section-head">
        <div>
          <h2>{t("data.title")}</h2>
          <p className="section-subtitle">{t("data.subtitle")}</p>
        </div>
      </header>
      {info.isPending && (
        <div className="loading">
          <Spinner /> {t("common.loading")}
        </div>
      )}
      {info.isError && <Banner tone="danger">{t("data.loadFailed")}</Banner>}
      {info.data && (
        <>
          <div className="card settings-card">
            <div className="card-title">
              {info.data.secrets.ready ? <ShieldCheck size={18} /> : <ShieldAlert size={18} />}
              <h3>{t("data.secrets")}</h3>
            </div>
            <p className="muted">{t("data.secretsBody")}</p>
            <dl className="facts">
              <div>
                <dt>{t("data.backend")}</dt>
                <dd data-testid="secret-backend">
                  <KeyRound size={14} aria-hidden="true" /> {t(`data.backends.${info.data.secrets.backend}`)}
                </dd>
              </div>
              <div>
                <dt>{t("data.location")}</dt>
                <dd className="mono">{info.data.secrets.location}</dd>
              </div>
              <div>
                <dt>{t("data.status")}</dt>
                <dd>
                  <span className={info.data.secrets.ready ? "status status-ok" : "status status-bad"}>
                    {info.data.secrets.ready ? t("data.ready") : t("data.locked")}
                  </span>
                </dd>
              </div>
            </dl>
            {info.data.secrets.note && (
              <Banner tone={info.data.secrets.ready ? "warning" : "danger"} testId="secret-note">
                {info.data.secrets.note}
              </Banner>
            )}
          </div>
          <div className="card settings-card">
            <div className="card-title">
              <h3>{t("data.workspace")}</h3>
            </div>
            <dl className="facts">
              <div>
                <dt>{t("data.dataDir")}</dt>
                <dd className="mono" data-testid="data-dir">
                  {info.data.dataDir}
                </dd>
              </div>
              <div>
                <dt>{t("data.database")}</dt>
                <dd className="mono">{info.data.databasePath}</dd>
              </div>
              <div>
                <dt>{t("data.schema")}</dt>
                <dd>{info.data.schemaVersion}</dd>
              </div>
              <div>
                <dt>{t("data.version")}</dt>
                <dd>{info.data.version}</dd>
              </div>
            </dl>
          </div>
          <BackupsCard />
        </>
      )}
    </section>
  );
}
