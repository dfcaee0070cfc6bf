import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Network, ShieldCheck } from "lucide-react";

import { teamBusApi, type ApiError, type TeamBusLink } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { Field } from "../../components/Field";
import { errorText, fieldErrorText } from "../../app/errorText";
import { useDates } from "../../app/dates";
import { teamKeys, teamStatusQuery } from "../team/queries";

/** Settings → Team bus (issue 17): this computer only, or a team's server
 * as well — its address, who the person is there, their token (sent once,
 * kept encrypted, shown masked) and the team's CA when it has its own. */
export function TeamBusSection() {
  const { t } = useTranslation();
  const status = useQuery(teamStatusQuery);
  return (
    <section className="section" data-testid="section-bus">
      <header className="section-head">
        <div>
          <h2>{t("teamBus.title")}</h2>
          <p className="section-subtitle">{t("teamBus.subtitle")}</p>
        </div>
      </header>
      {status.error && <Banner tone="danger">{errorText(t, status.error as ApiError)}</Banner>}
      {status.data ? <Connected link={status.data} /> : status.isSuccess && <ConnectForm />}
    </section>
  );
}

function ConnectForm() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [url, setUrl] = useState("");
  const [authorId, setAuthorId] = useState("");
  const [token, setToken] = useState("");
  const [caPem, setCaPem] = useState("");
  const connect = useMutation<TeamBusLink, ApiError>({
    mutationFn: () => teamBusApi.connect({ url, authorId, token, caPem: caPem.trim() ? caPem : null }),
    onSuccess: (link) => {
      setToken("");
      client.setQueryData(teamKeys.status, link);
      void client.invalidateQueries({ queryKey: teamKeys.all });
    },
  });
  const problems = connect.error?.fieldProblems() ?? {};
  const fieldless = connect.error && Object.keys(problems).length === 0;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    connect.mutate();
  };
  return (
    <div className="card settings-card team-bus-card">
      <p className="muted small">{t("teamBus.here")}</p>
      {fieldless && <Banner tone="danger">{errorText(t, connect.error)}</Banner>}
      <form className="form" onSubmit={submit}>
        <Field id="team-url" label={t("teamBus.url")} hint={t("teamBus.urlHint")} error={fieldErrorText(t, problems.url, connect.error)}>
          <input id="team-url" className="input" value={url} placeholder="https://bus.example:7878" onChange={(e) => setUrl(e.target.value)} data-testid="team-url" />
        </Field>
        <Field id="team-author" label={t("teamBus.author")} hint={t("teamBus.authorHint")} error={fieldErrorText(t, problems.authorId, connect.error)}>
          <input id="team-author" className="input" value={authorId} onChange={(e) => setAuthorId(e.target.value)} data-testid="team-author" />
        </Field>
        <Field id="team-token" label={t("teamBus.token")} hint={t("teamBus.tokenHint")} error={fieldErrorText(t, problems.token, connect.error)}>
          <input id="team-token" className="input mono" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} data-testid="team-token" />
        </Field>
        <Field id="team-ca" label={t("teamBus.ca")} hint={t("teamBus.caHint")} error={fieldErrorText(t, problems.ca, connect.error)}>
          <textarea id="team-ca" className="input textarea mono" rows={3} value={caPem} placeholder="-----BEGIN CERTIFICATE-----" onChange={(e) => setCaPem(e.target.value)} data-testid="team-ca" />
        </Field>
        <div className="form-actions">
          <Button type="submit" variant="primary" icon={<Network size={16} />} busy={connect.isPending} disabled={!url.trim() || !authorId.trim() || !token.trim()} data-testid="team-connect">
            {t("teamBus.connect")}
          </Button>
        </div>
      </form>
    </div>
  );
}

function Connected({ link }: { link: TeamBusLink }) {
  const { t } = useTranslation();
  const dates = useDates();
  const client = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const leave = useMutation<number, ApiError>({
    mutationFn: teamBusApi.disconnect,
    onSuccess: () => {
      setConfirming(false);
      client.setQueryData(teamKeys.status, null);
      void client.invalidateQueries({ queryKey: teamKeys.all });
    },
  });
  return (
    <div className="card settings-card team-bus-card" data-testid="team-connected">
      <div className="card-title team-bus-title">
        <Network size={18} aria-hidden="true" />
        <span>{t("teamBus.connected", { url: link.url, author: link.authorId })}</span>
      </div>
      <p className="muted small team-bus-facts">
        <span className="mono">{t("teamBus.tokenMasked", { mask: link.tokenMask })}</span>
        {link.customCa && (
          <span>
            <ShieldCheck size={14} aria-hidden="true" /> {t("teamBus.customCa")}
          </span>
        )}
      </p>
      {link.reachable ? (
        <p className="team-link team-link-up" data-testid="team-link">
          {link.lastOkAt ? t("teamBus.reachable", { time: dates.fromNow(link.lastOkAt) }) : t("teamBus.reachableNever")}
        </p>
      ) : (
        <Banner tone="warning">
          <span data-testid="team-link">
            {t("teamBus.unreachable", { time: link.lastErrorAt ? dates.fromNow(link.lastErrorAt) : "", error: link.lastError ?? "" })}
          </span>
        </Banner>
      )}
      {link.waiting > 0 && (
        <p className="muted small" data-testid="team-waiting">
          {t("teamBus.waiting", { count: link.waiting })}
        </p>
      )}
      {leave.error && <Banner tone="danger">{errorText(t, leave.error)}</Banner>}
      <div className="form-actions">
        <Button variant="ghost" onClick={() => setConfirming(true)} data-testid="team-disconnect">
          {t("teamBus.disconnect")}
        </Button>
      </div>
      {confirming && (
        <ConfirmDialog
          title={t("teamBus.disconnectTitle")}
          body={link.waiting > 0 ? t("teamBus.disconnectBodyWaiting", { count: link.waiting }) : t("teamBus.disconnectBody")}
          busy={leave.isPending}
          onConfirm={() => leave.mutate()}
          onCancel={() => setConfirming(false)}
          confirmTestId="team-disconnect-confirm"
        />
      )}
    </div>
  );
}
