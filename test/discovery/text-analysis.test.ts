import { describe, expect, it } from "vitest";
import {
  analyze,
  analyzeQuery,
  normalizeText,
  STOP_WORDS,
  splitIdentifier,
  stem,
  tokenize,
  withoutAddresses,
} from "../../src/core/discovery/text-analysis.js";

describe("splitIdentifier", () => {
  it("splits camelCase and PascalCase and keeps the short joined form", () => {
    expect(splitIdentifier("sendMessage")).toEqual(["send", "message", "sendmessage"]);
    expect(splitIdentifier("GitHub")).toEqual(["git", "hub", "github"]);
  });

  it("splits an acronym from the word after it", () => {
    expect(splitIdentifier("HTMLParser")).toEqual(["html", "parser", "htmlparser"]);
  });

  it("splits snake_case, kebab-case, dots, slashes and colons", () => {
    expect(splitIdentifier("message.send")).toEqual(["message", "send", "messagesend"]);
    expect(splitIdentifier("e-mail")).toEqual(["e", "mail", "email"]);
    expect(splitIdentifier("user_name")).toEqual(["user", "name", "username"]);
    expect(splitIdentifier("repos/list:all")).toEqual(["repos", "list", "all", "reposlistall"]);
  });

  it("splits at letter-digit boundaries", () => {
    expect(splitIdentifier("oauth2")).toEqual(["oauth", "2", "oauth2"]);
  });

  it("does not keep a joined form of long identifiers such as URL paths", () => {
    expect(splitIdentifier("getUserById")).toEqual(["get", "user", "by", "id"]);
    expect(splitIdentifier("/a/very/long/path".slice(1))).toEqual(["a", "very", "long", "path"]);
  });

  it("leaves a plain word whole, lowercased", () => {
    expect(splitIdentifier("Weather")).toEqual(["weather"]);
  });
});

describe("normalizeText and tokenize", () => {
  it("strips diacritics and folds compatibility forms (NFKD)", () => {
    expect(tokenize("Café naïve ｃａｆｅ")).toEqual(["cafe", "naive", "cafe"]);
  });

  it("drops possessives and apostrophes so contractions stay one word", () => {
    expect(normalizeText("the user's file, don't")).toBe("the user file, dont");
  });

  it("treats punctuation as a separator", () => {
    expect(tokenize("Hello, world! (really?)")).toEqual(["hello", "world", "really"]);
  });
});

describe("stem", () => {
  it("applies Porter2", () => {
    expect(stem("sending")).toBe("send");
    expect(stem("messages")).toBe("messag");
    expect(stem("message")).toBe("messag");
  });

  it("leaves identifiers with digits alone", () => {
    expect(stem("oauth2")).toBe("oauth2");
    expect(stem("2024")).toBe("2024");
  });
});

describe("analyze", () => {
  it("removes English stop words and stems the rest", () => {
    expect(STOP_WORDS.has("the")).toBe(true);
    expect(analyze("Sending a message to the channel")).toEqual(["send", "messag", "channel"]);
  });

  it("gives the same terms for an identifier and its prose", () => {
    expect(analyze("sendMessage")).toEqual(expect.arrayContaining(analyze("send message")));
  });

  it("drops single letters left over from identifiers but keeps digits", () => {
    expect(analyze("e-mail v2")).toEqual(["mail", "email", "2", "v2"]);
  });

  it("returns no terms for a text of stop words and punctuation only", () => {
    expect(analyze("can you do it for me?!")).toEqual([]);
    expect(analyze("")).toEqual([]);
  });
});

describe("withoutAddresses and analyzeQuery", () => {
  it("drops an email address and keeps only the scheme of a URL", () => {
    expect(withoutAddresses("remember my email is bob@example.com").trim()).toBe("remember my email is");
    expect(withoutAddresses("fetch https://api.example.com/users?id=1 now")).toBe("fetch  https  now");
    expect(withoutAddresses("contact j.doe+news@mail.acme.io, or ann@example.org.")).toBe("contact  , or  .");
  });

  it("leaves text without addresses as it is, bare hosts and mentions included", () => {
    for (const text of ["grab the html of example.com", "ping @ann in #general", "ratio 3:2 at 10:30"]) {
      expect(withoutAddresses(text)).toBe(text);
    }
  });

  it("gives a request's terms without the words inside its addresses", () => {
    expect(analyzeQuery("remember my email is bob@example.com")).toEqual(["rememb", "email"]);
    expect(analyzeQuery("fetch https://api.example.com/users")).toEqual(["fetch", "https"]);
    expect(analyze("fetch https://api.example.com/users")).toContain("exampl");
  });
});
