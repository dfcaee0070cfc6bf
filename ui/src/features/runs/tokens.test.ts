import { describe, expect, it } from "vitest";

import i18n from "../../i18n";
import { notReported, tokenCount, tokenTotal, usageText } from "./tokens";

const t = i18n.getFixedT("en");
const es = i18n.getFixedT("es");

describe("token counts", () => {
  it("show — for a count the provider did not report, never 0", () => {
    const silent = { promptTokens: null, completionTokens: null };
    expect(usageText(t, silent)).toBe("Tokens: — (not reported by the provider)");
    expect(usageText(es, silent)).toBe("Tokens: — (el proveedor no los informa)");
    expect(usageText(t, silent)).not.toMatch(/\b0\b/);
    expect(notReported(silent)).toBe(true);
    expect(tokenTotal(silent)).toBeNull();
    expect(tokenCount(tokenTotal(silent))).toBe("—");
  });

  it("show reported counts as they came, zero included", () => {
    expect(usageText(t, { promptTokens: 42, completionTokens: 5 })).toBe("42 tokens in · 5 out");
    expect(usageText(t, { promptTokens: 1, completionTokens: 0 })).toBe("1 token in · 0 out");
    expect(tokenTotal({ promptTokens: 42, completionTokens: 5 })).toBe(47);
    expect(notReported({ promptTokens: 0, completionTokens: 0 })).toBe(false);
  });

  it("mark the one count that is missing", () => {
    expect(usageText(t, { promptTokens: null, completionTokens: 7 })).toBe("— in · 7 out");
    expect(usageText(es, { promptTokens: 12, completionTokens: null })).toBe("12 de entrada · — de salida");
    expect(tokenTotal({ promptTokens: null, completionTokens: 7 })).toBe(7);
  });
});
