import { describe, expect, it } from "vitest";

import { ApiError, toApiError } from "./errors";

describe("toApiError", () => {
  it("keeps the code, message and details of a backend error", () => {
    const err = toApiError({
      code: "validation",
      message: "name must not be empty; bad url",
      details: {
        field: "name",
        reason: "required",
        fields: [
          { field: "name", reason: "required", message: "name must not be empty" },
          { field: "baseUrl", reason: "invalid_url", message: "bad url" },
        ],
      },
    });
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe("validation");
    expect(err.fieldProblems()).toEqual({
      name: { reason: "required", message: "name must not be empty" },
      baseUrl: { reason: "invalid_url", message: "bad url" },
    });
  });

  it("turns framework failures into internal errors", () => {
    const err = toApiError("list_providers not allowed");
    expect(err.code).toBe("internal");
    expect(err.message).toBe("list_providers not allowed");
    expect(err.fieldProblems()).toEqual({});
  });

  it("does not mistake an object with an unknown code for a backend error", () => {
    const err = toApiError({ code: "teapot", message: "short and stout" });
    expect(err.code).toBe("internal");
  });

  it("reads a single-field error and the agents that block a deletion", () => {
    const single = toApiError({
      code: "conflict",
      message: "a provider named 'OpenAI' already exists",
      details: { field: "name", reason: "duplicate" },
    });
    expect(single.fieldProblems().name?.reason).toBe("duplicate");
    const inUse = toApiError({
      code: "conflict",
      message: "in use",
      details: { agents: ["redactor", "revisor"] },
    });
    expect(inUse.blockingAgents()).toEqual(["redactor", "revisor"]);
  });
});
