import { describe, expect, it } from "vitest";

import { ApiError, type Model } from "../../api";
import { missingModel, modelProblem, modelProblemOf } from "./needsModel";

const model = (id: string): Model => ({
  id,
  providerId: id.split("/")[0]!,
  name: id.split("/")[1]!,
  label: null,
  enabled: true,
  providerEnabled: true,
  acceptsImages: false,
  imagesSetting: null,
  createdAt: "2026-01-01T00:00:00Z",
  updatedAt: "2026-01-01T00:00:00Z",
});

describe("needs a model", () => {
  it("says nothing while loading", () => {
    expect(missingModel(undefined, null)).toBeNull();
    expect(missingModel([], undefined)).toBeNull();
  });

  it("tells no model apart from no default", () => {
    expect(missingModel([], null)).toBe("no_models");
    expect(missingModel([model("lm/a")], null)).toBe("no_default");
    expect(missingModel([model("lm/a")], "lm/gone")).toBe("no_default");
    expect(missingModel([model("lm/a")], "lm/a")).toBeNull();
  });

  it("recognises the errors that connecting a model fixes, by reason", () => {
    const noModel = new ApiError("precondition", "no model", { reason: "no_model" });
    const refused = new ApiError("upstream", "401", { reason: "auth_refused" });
    expect(modelProblem(noModel)).toBe(noModel);
    expect(modelProblem(refused)).toBe(refused);
    expect(modelProblem(new ApiError("upstream", "429", { reason: "rate_limited" }))).toBeNull();
    expect(modelProblem(new Error("no_model"))).toBeNull();
  });

  it("finds a model problem in a failed action or in the failed part of an outcome", () => {
    const raw = { code: "precondition", message: "this variant has no model", details: { reason: "no_model" } };
    const fromOutcome = modelProblemOf({ status: "success", error: null, data: { done: [], failed: [{ variantId: "v", error: raw }] } });
    expect(fromOutcome).toBeInstanceOf(ApiError);
    expect(fromOutcome?.details?.reason).toBe("no_model");
    expect(modelProblemOf({ status: "success", error: null, data: { done: [], failed: [] } })).toBeNull();
    expect(modelProblemOf({ status: "error", error: new ApiError("precondition", "x", { reason: "model_disabled" }), data: undefined })).not.toBeNull();
    expect(modelProblemOf({ status: "pending", error: null, data: undefined })).toBeNull();
  });
});
