import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { runtimeFile } from "../../package-files.js";

/** The dashboard's static files (the build copies them to dist). */
const ASSET_DIR = runtimeFile("src/http/dashboard/assets/");

const TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
};

export interface Asset {
  /** The URL path, with a hash of the content so it can be cached forever. */
  path: string;
  type: string;
  body: Buffer;
}

/**
 * Reads the assets once at start-up. Hashed names let browsers cache them for a year and
 * still get a new file with each release: pages load with no request for them after the first.
 */
export function loadAssets(): Record<"css" | "js" | "icon", Asset> {
  const load = (file: string): Asset => {
    const body = readFileSync(new URL(file, ASSET_DIR));
    const hash = createHash("sha256").update(body).digest("hex").slice(0, 12);
    const dot = file.lastIndexOf(".");
    const extension = file.slice(dot + 1);
    return {
      path: `/dashboard/assets/${file.slice(0, dot)}.${hash}.${extension}`,
      type: TYPES[extension] ?? "application/octet-stream",
      body,
    };
  };
  return { css: load("dashboard.css"), js: load("dashboard.js"), icon: load("icon.svg") };
}
