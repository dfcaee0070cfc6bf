import { describe, expect, it } from "vitest";

import { ApiError, ERROR_CODES } from "../api";
import en from "../i18n/catalog.en";
import type { Catalog } from "../i18n/catalogs";
import { CLASSIFIED, remedyFor, remedyOfCode, remedyOfReason } from "./remedies";

const reasons = Object.keys((en.errors as Catalog).reasons as Catalog);

describe("every error the window can show carries its fix", () => {
  it("classifies every error code", () => {
    for (const code of ERROR_CODES) expect(remedyOfCode(code), code).toBeDefined();
  });

  it("classifies every reason the window has words for, and words every reason it classifies", () => {
    expect(reasons.length).toBeGreaterThan(100);
    const unclassified = reasons.filter((r) => remedyOfReason(r) === null);
    expect(unclassified).toEqual([]);
    const unworded = [...CLASSIFIED].filter((r) => !reasons.includes(r));
    expect(unworded).toEqual([]);
  });

  it("a refused key opens that provider's key; a model without images gets its switch; no default gets a choice", () => {
    const refused = new ApiError("upstream", "the provider refused the API key (401)", { reason: "auth_refused", providerId: "openai", modelId: "openai/gpt-4o" });
    expect(remedyFor(refused)).toEqual({ kind: "providerKey", providerId: "openai" });
    const images = new ApiError("precondition", "no images", { reason: "model_without_images", modelId: "ollama/llava" });
    expect(remedyFor(images)).toEqual({ kind: "modelImages", modelId: "ollama/llava" });
    expect(remedyFor(new ApiError("precondition", "no default", { reason: "no_default" }))).toEqual({ kind: "chooseDefault" });
    expect(remedyFor(new ApiError("precondition", "off", { reason: "provider_disabled", providerId: "openai" }))).toEqual({ kind: "enableProvider", providerId: "openai" });
  });

  it("falls back to the code for a reason this build does not know", () => {
    expect(remedyFor(new ApiError("upstream", "odd", { reason: "something_new" }))).toEqual({ kind: "retry" });
    expect(remedyFor(new ApiError("internal", "bug"))).toEqual({ kind: "none" });
  });
});
