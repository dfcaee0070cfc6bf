// "Connect a model" (issue 12): the first run's first step and the dialog
// behind the "no model" banner. A server found on this machine is one
// click; a hosted provider is a pasted key. Either way the person then
// presses "Test connection" and watches the model's one-line answer stream
// in — the first model that answers becomes the default.

import { useEffect, useRef, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { CheckCircle2, Cpu, KeyRound, RefreshCw, Zap } from "lucide-react";

import { DownloadModel } from "../localModels/DownloadModel";
import { api, onboardingApi, type ApiError, type Connected, type ConnectionCheck, type ConnectModel, type LocalServer, type Model } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Field } from "../../components/Field";
import { Segmented } from "../../components/Segmented";
import { Spinner } from "../../components/Spinner";
import { errorText } from "../../app/errorText";
import { catalogKeys } from "../catalog/queries";
import { defaultModelQuery, runtimeKeys } from "../runs/queries";
import { KEY_PRESETS, fromKey, fromServer, keyPreset, type KeyPresetId } from "./connectInput";
import { providerKeys } from "./queries";

export const localServersKey = ["local-servers"] as const;

interface ConnectModelPanelProps {
  /** Told when a model answered its test. */
  onWorking?(check: ConnectionCheck): void;
  /** Told what is connected (`null`: the person went back to choose). */
  onConnected?(connected: Connected | null): void;
  /** Connect by itself when the scan finds exactly one server with a
   * model (the first run: no click before "Finish"). */
  autoConnect?: boolean;
}

/** The panel: servers found here, a downloadable model, a pasted key. */
export function ConnectModelPanel({ onWorking, onConnected, autoConnect = false }: ConnectModelPanelProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [connected, setConnectedState] = useState<Connected | null>(null);
  const setConnected = (made: Connected | null) => {
    setConnectedState(made);
    onConnected?.(made);
  };
  const refresh = () => {
    for (const key of [providerKeys.providers, providerKeys.models, runtimeKeys.defaultModel, catalogKeys.setup, localServersKey]) {
      void client.invalidateQueries({ queryKey: key });
    }
  };
  const connect = useMutation<Connected, ApiError, ConnectModel>({
    mutationFn: (input) => onboardingApi.connectModel(input),
    onSuccess: (made) => {
      setConnected(made);
      refresh();
    },
  });
  // A model downloaded here is connected like any other: its test follows.
  const downloaded = async (model: Model) => {
    const provider = (await api.listProviders()).find((p) => p.id === model.providerId);
    refresh();
    if (provider) setConnected({ provider, models: [model] });
  };
  const servers = useQuery({ queryKey: localServersKey, queryFn: onboardingApi.detectLocalServers, staleTime: 0 });
  // The one server found, connected once by itself when asked to.
  const only = autoConnect && servers.data?.length === 1 ? servers.data[0] : undefined;
  const autoTried = useRef(false);
  const { mutate: connectTo } = connect;
  useEffect(() => {
    const model = only?.models[0];
    if (!only || !model || autoTried.current) return;
    autoTried.current = true;
    connectTo(fromServer(only, model));
  }, [only, connectTo]);

  if (connected) {
    return (
      <ConnectionTest
        connected={connected}
        onWorking={(check) => {
          refresh();
          onWorking?.(check);
        }}
        onBack={() => {
          connect.reset();
          setConnected(null);
        }}
      />
    );
  }
  // Offered first when nothing is found to connect to (issue 35).
  const offerFirst = (servers.data?.length ?? 0) === 0;
  const offer = <DownloadModel onDownloaded={(model) => void downloaded(model)} />;
  return (
    <div className="connect-model" data-testid="connect-model">
      {offerFirst && offer}
      <LocalServers busy={connect.isPending} onConnect={(input) => connect.mutate(input)} />
      {!offerFirst && offer}
      <KeyForm busy={connect.isPending} onConnect={(input) => connect.mutate(input)} />
      {connect.error && (
        <Banner tone="danger" testId="connect-error">
          {errorText(t, connect.error)}
        </Banner>
      )}
    </div>
  );
}

function LocalServers({ busy, onConnect }: { busy: boolean; onConnect(input: ConnectModel): void }) {
  const { t } = useTranslation();
  const servers = useQuery({ queryKey: localServersKey, queryFn: onboardingApi.detectLocalServers, staleTime: 0 });
  const found = servers.data ?? [];
  return (
    <section className="connect-section" aria-labelledby="connect-local-title">
      <header className="connect-section-head">
        <Cpu size={18} aria-hidden="true" />
        <div>
          <h3 id="connect-local-title">{t("onboarding.connect.localTitle")}</h3>
          <p className="muted small">{t("onboarding.connect.localBody")}</p>
        </div>
        <Button
          variant="ghost"
          size="sm"
          icon={<RefreshCw size={14} />}
          busy={servers.isFetching}
          onClick={() => void servers.refetch()}
          data-testid="connect-rescan"
        >
          {t("onboarding.connect.rescan")}
        </Button>
      </header>
      {servers.isPending ? (
        <p className="muted small connect-scanning">
          <Spinner size={14} /> {t("onboarding.connect.scanning")}
        </p>
      ) : servers.error ? (
        <Banner tone="danger">{errorText(t, servers.error as ApiError)}</Banner>
      ) : found.length === 0 ? (
        <p className="muted small connect-none" data-testid="connect-none-found">
          {t("onboarding.connect.noneFound")}
        </p>
      ) : (
        <ul className="connect-servers">
          {found.map((server) => (
            <LocalServerRow key={server.baseUrl} server={server} busy={busy} onConnect={onConnect} />
          ))}
        </ul>
      )}
    </section>
  );
}

function LocalServerRow({ server, busy, onConnect }: { server: LocalServer; busy: boolean; onConnect(input: ConnectModel): void }) {
  const { t } = useTranslation();
  const [model, setModel] = useState(server.models[0] ?? "");
  const selectId = `local-model-${server.kind}`;
  return (
    <li className="connect-server" data-testid={`local-server-${server.kind}`}>
      <div className="connect-server-text">
        <strong>{server.name}</strong>
        <span className="muted small mono">{server.baseUrl}</span>
        {server.providerId && <span className="connect-badge">{t("onboarding.connect.alreadyConnected")}</span>}
      </div>
      {server.models.length === 0 ? (
        <span className="muted small">{t("onboarding.connect.noModelsLoaded")}</span>
      ) : (
        <>
          <select id={selectId} className="input" aria-label={t("onboarding.connect.model")} value={model} onChange={(e) => setModel(e.target.value)} data-testid={selectId}>
            {server.models.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
          <Button variant="primary" busy={busy} onClick={() => onConnect(fromServer(server, model))} data-testid={`connect-local-${server.kind}`}>
            {t("onboarding.connect.use")}
          </Button>
        </>
      )}
    </li>
  );
}

function KeyForm({ busy, onConnect }: { busy: boolean; onConnect(input: ConnectModel): void }) {
  const { t } = useTranslation();
  const [presetId, setPresetId] = useState<KeyPresetId>("openai");
  const preset = keyPreset(presetId);
  const [key, setKey] = useState("");
  const [model, setModel] = useState(preset.model);
  const input = fromKey(preset, key, model);
  const choose = (id: KeyPresetId) => {
    setPresetId(id);
    setModel(keyPreset(id).model);
  };
  return (
    <section className="connect-section" aria-labelledby="connect-key-title">
      <header className="connect-section-head">
        <KeyRound size={18} aria-hidden="true" />
        <div>
          <h3 id="connect-key-title">{t("onboarding.connect.keyTitle")}</h3>
          <p className="muted small">{t("onboarding.connect.keyBody")}</p>
        </div>
      </header>
      <form
        className="connect-key-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (input) onConnect(input);
        }}
      >
        <Segmented
          label={t("onboarding.connect.provider")}
          value={presetId}
          onChange={choose}
          options={KEY_PRESETS.map((p) => ({ value: p.id, label: p.name, testId: `key-preset-${p.id}` }))}
        />
        <div className="connect-key-fields">
          <Field id="connect-key" label={t("onboarding.connect.key")} hint={t("onboarding.connect.keyHint", { where: preset.keysAt })}>
            <input
              id="connect-key"
              className="input"
              type="password"
              autoComplete="off"
              spellCheck={false}
              value={key}
              onChange={(e) => setKey(e.target.value)}
              data-testid="connect-key-input"
            />
          </Field>
          <Field id="connect-key-model" label={t("onboarding.connect.model")}>
            <input
              id="connect-key-model"
              className="input mono"
              value={model}
              spellCheck={false}
              onChange={(e) => setModel(e.target.value)}
              data-testid="connect-key-model"
            />
          </Field>
        </div>
        <div className="connect-key-actions">
          <Button type="submit" variant="secondary" busy={busy} disabled={!input} data-testid="connect-key">
            {t("onboarding.connect.connectKey", { provider: preset.name })}
          </Button>
        </div>
      </form>
    </section>
  );
}

/** The connected provider, a model to try, and its streamed answer. */
function ConnectionTest({ connected, onWorking, onBack }: { connected: Connected; onWorking(check: ConnectionCheck): void; onBack(): void }) {
  const { t } = useTranslation();
  const [modelId, setModelId] = useState(connected.models[0]?.id ?? "");
  const [answer, setAnswer] = useState("");
  const defaultId = useQuery(defaultModelQuery).data;
  const test = useMutation<ConnectionCheck, ApiError, string>({
    mutationFn: (id) => {
      setAnswer("");
      return onboardingApi.testConnection(id, (delta) => setAnswer((sofar) => sofar + delta));
    },
    onSuccess: onWorking,
  });
  return (
    <div className="connect-model connect-test" data-testid="connect-test-panel">
      <div className="connect-connected">
        <CheckCircle2 size={18} className="connect-ok-icon" aria-hidden="true" />
        <div>
          <strong data-testid="connected-provider">{t("onboarding.connect.connected", { provider: connected.provider.name })}</strong>
          <p className="muted small">{t("onboarding.connect.models", { count: connected.models.length })}</p>
        </div>
        <Button variant="ghost" size="sm" onClick={onBack} disabled={test.isPending} data-testid="connect-another">
          {t("onboarding.connect.another")}
        </Button>
      </div>
      <div className="connect-test-row">
        <select
          id="connect-test-model"
          className="input"
          aria-label={t("onboarding.connect.model")}
          value={modelId}
          onChange={(e) => {
            test.reset();
            setAnswer("");
            setModelId(e.target.value);
          }}
          data-testid="connect-test-model"
        >
          {connected.models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.label ?? m.name}
            </option>
          ))}
        </select>
        <Button variant="primary" icon={<Zap size={15} />} busy={test.isPending} disabled={!modelId} onClick={() => test.mutate(modelId)} data-testid="connect-test">
          {t("onboarding.connect.test")}
        </Button>
      </div>
      <div className={answer || test.isPending ? "connect-answer" : "connect-answer connect-answer-empty"} aria-live="polite" data-testid="connect-answer">
        {answer || (test.isPending ? t("onboarding.connect.waiting") : t("onboarding.connect.answerHint"))}
      </div>
      {test.data && (
        <Banner tone="success" testId="connect-works">
          {test.data.becameDefault || defaultId === test.data.modelId ? t("onboarding.connect.worksDefault") : t("onboarding.connect.works")}
        </Banner>
      )}
      {test.error && (
        <Banner tone="danger" testId="connect-test-error">
          {errorText(t, test.error)}
        </Banner>
      )}
    </div>
  );
}
