import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Check, Pencil, Plus, Trash2, X } from "lucide-react";

import { api, type ApiError, type Model, type Provider } from "../../api";
import { Button, IconButton } from "../../components/Button";
import { Switch } from "../../components/Switch";
import { errorText, fieldErrorText } from "../../app/errorText";
import { KIND_EXAMPLES } from "./kinds";
import { modelsQuery, providerKeys } from "./queries";

type ImagesChoice = "auto" | "on" | "off";

/** The model's "accepts images" setting as the select shows it. */
export function imagesChoice(model: Pick<Model, "imagesSetting">): ImagesChoice {
  return model.imagesSetting === null ? "auto" : model.imagesSetting ? "on" : "off";
}

const SETTING: Record<ImagesChoice, boolean | null> = { auto: null, on: true, off: false };

export function ModelList({ provider }: { provider: Provider }) {
  const { t } = useTranslation();
  const models = useQuery(modelsQuery(provider.id));
  const example = KIND_EXAMPLES[provider.kind].model;
  // Models on this computer are their files: they are added, loaded and
  // deleted in "On this computer", never by name here.
  const local = provider.kind === "local";

  return (
    <section className="models" aria-label={t("models.title")} data-testid={`models-${provider.id}`}>
      <h4 className="models-title">{t("models.title")}</h4>
      {models.data && models.data.length === 0 && <p className="models-empty">{t("models.empty", { example })}</p>}
      {models.data && models.data.length > 0 && (
        <ul className="model-list">
          {models.data.map((model) => (
            <ModelRow key={model.id} model={model} local={local} />
          ))}
        </ul>
      )}
      {local ? <p className="muted small">{t("models.localNote")}</p> : <AddModel provider={provider} example={example} />}
    </section>
  );
}

function useInvalidateModels() {
  const client = useQueryClient();
  return () => {
    void client.invalidateQueries({ queryKey: providerKeys.models });
    void client.invalidateQueries({ queryKey: providerKeys.providers });
  };
}

function AddModel({ provider, example }: { provider: Provider; example: string }) {
  const { t } = useTranslation();
  const invalidate = useInvalidateModels();
  const [name, setName] = useState("");
  const add = useMutation<Model, ApiError>({
    mutationFn: () => api.createModel({ providerId: provider.id, name }),
    onSuccess: () => {
      setName("");
      invalidate();
    },
  });
  const problem = add.error?.fieldProblems().name;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  const inputId = `new-model-${provider.id}`;
  return (
    <form className="add-model" onSubmit={submit} noValidate>
      <div className="add-model-row">
        <label className="visually-hidden" htmlFor={inputId}>
          {t("models.nameLabel")}
        </label>
        <input
          id={inputId}
          className="input input-sm mono"
          value={name}
          placeholder={t("models.namePlaceholder", { example })}
          aria-invalid={Boolean(problem)}
          data-testid={`new-model-${provider.id}`}
          onChange={(e) => setName(e.target.value)}
        />
        <Button size="sm" type="submit" icon={<Plus size={14} />} busy={add.isPending}>
          {t("models.add")}
        </Button>
      </div>
      {add.error && (
        <p className="field-error" role="alert">
          {problem ? fieldErrorText(t, problem) : errorText(t, add.error)}
        </p>
      )}
    </form>
  );
}

function ModelRow({ model, local }: { model: Model; local: boolean }) {
  const { t } = useTranslation();
  const invalidate = useInvalidateModels();
  const [mode, setMode] = useState<"view" | "rename" | "confirm-delete">("view");
  const [newName, setNewName] = useState(model.name);

  const toggle = useMutation<Model, ApiError, boolean>({
    mutationFn: (enabled) => api.setModelEnabled(model.id, enabled),
    onSettled: invalidate,
  });
  const rename = useMutation<Model, ApiError>({
    mutationFn: () => api.renameModel(model.id, newName),
    onSuccess: () => {
      setMode("view");
      invalidate();
    },
  });
  const remove = useMutation<null, ApiError>({
    mutationFn: () => api.deleteModel(model.id),
    onSuccess: invalidate,
  });
  const images = useMutation<Model, ApiError, ImagesChoice>({
    mutationFn: (choice) => api.setModelImages(model.id, SETTING[choice]),
    onSettled: invalidate,
  });
  const error = rename.error ?? remove.error ?? toggle.error ?? images.error;
  const autoLabel =
    model.imagesSetting === null ? (model.acceptsImages ? t("models.images.autoYes") : t("models.images.autoNo")) : t("models.images.auto");
  const label = model.label ?? model.name;

  return (
    <li className="model-row" data-testid={`model-${model.id}`}>
      <div className="model-main">
        {mode === "rename" ? (
          <form
            className="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              rename.mutate();
            }}
          >
            <input
              className="input input-sm mono"
              value={newName}
              aria-label={t("models.renameLabel", { name: model.name })}
              aria-invalid={Boolean(rename.error)}
              autoFocus
              onChange={(e) => setNewName(e.target.value)}
            />
            <IconButton label={t("common.save")} type="submit">
              <Check size={16} />
            </IconButton>
            <IconButton
              label={t("common.cancel")}
              onClick={() => {
                setMode("view");
                setNewName(model.name);
                rename.reset();
              }}
            >
              <X size={16} />
            </IconButton>
          </form>
        ) : (
          <>
            <span className="model-name mono">{label}</span>
            <span className="model-id mono">{model.id}</span>
          </>
        )}
      </div>
      <div className="model-actions">
        {mode === "confirm-delete" ? (
          <>
            <span className="confirm-text">{t("models.confirmDelete", { name: model.name })}</span>
            <Button size="sm" variant="danger" busy={remove.isPending} onClick={() => remove.mutate()}>
              {t("common.delete")}
            </Button>
            <Button
              size="sm"
              variant="ghost"
              onClick={() => {
                setMode("view");
                remove.reset();
              }}
            >
              {t("common.cancel")}
            </Button>
          </>
        ) : (
          <>
            {!model.providerEnabled && <span className="muted small">{t("models.offWithProvider")}</span>}
            {!local && (
            <select
              className="input input-sm model-images"
              value={imagesChoice(model)}
              disabled={images.isPending}
              aria-label={t("models.images.label", { name: model.name })}
              title={t("models.images.hint")}
              onChange={(e) => images.mutate(e.target.value as ImagesChoice)}
              data-testid={`model-images-${model.id}`}
            >
              <option value="auto">{autoLabel}</option>
              <option value="on">{t("models.images.on")}</option>
              <option value="off">{t("models.images.off")}</option>
            </select>
            )}
            <Switch
              checked={model.enabled}
              disabled={!model.providerEnabled || toggle.isPending}
              label={t("models.toggle", { name: model.name })}
              onChange={(enabled) => toggle.mutate(enabled)}
            />
            {!local && (
              <>
                <IconButton label={t("models.rename")} onClick={() => setMode("rename")}>
                  <Pencil size={15} />
                </IconButton>
                <IconButton label={t("models.delete", { name: model.name })} tone="danger" onClick={() => setMode("confirm-delete")}>
                  <Trash2 size={15} />
                </IconButton>
              </>
            )}
          </>
        )}
      </div>
      {error && (
        <p className="field-error model-error" role="alert">
          {error === rename.error ? (fieldErrorText(t, error.fieldProblems().newName) ?? errorText(t, error)) : errorText(t, error)}
        </p>
      )}
    </li>
  );
}
