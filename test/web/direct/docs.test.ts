/**
 * The direct reader on documentation split into sibling sections under their headings (a
 * command's manual page as documentation generators render it): every section is read, the
 * sidebar stays out. The page is small and written for the test.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readHtml } from "../../../src/web/providers/direct/html.js";
import { inOrder, textOf } from "./reader-text.js";

const section = (id: string, title: string, body: string) =>
  `<div class="sect1"><h2 id="_${id}">${title}</h2><div class="sectionbody">${body}</div></div>`;

const option = (flag: string, what: string) =>
  `<dt class="hdlist1"><code>${flag}</code></dt><dd><p>${what} The option can be given more than once; the last one wins, and the configuration file's value is used when it is absent from the command line.</p></dd>`;

describe("direct reader: documentation in a run of headed sections", () => {
  const options = ["all", "message", "amend", "quiet", "verbose", "signoff"].map(
    (name, index) =>
      [
        `--${name}`,
        `Stage every tracked file of kind ${index}, modified or deleted, before recording the change.`,
      ] as const,
  );
  const html = `<!DOCTYPE html><html><head><title>tool-record - Documentation</title></head><body>
    <aside class="sidebar"><nav><ul><li><a href="/docs">Reference</a></li><li><a href="/docs/tool-log">tool-log</a></li></ul></nav></aside>
    <div id="content"><h1>tool-record</h1><div id="main">
      ${section("name", "NAME", "<p>tool-record - Record changes to the repository</p>")}
      ${section("description", "DESCRIPTION", "<p>Create a new change holding the current contents of the index and the given message describing it.</p>")}
      ${section("options", "OPTIONS", `<div class="dlist"><dl>${options.map(([flag, what]) => option(flag, what)).join("")}</dl></div>`)}
      ${section("examples", "EXAMPLES", "<ul><li>Record every change to tracked files at once, with a message given on the command line.</li><li>Record only the files named after the double dash, leaving what is staged for later.</li><li>Replace the last change by a new one when its message has a typing error.</li></ul><p>Record what you staged, then fix its message:</p><pre><code>tool add notes.txt\ntool record --amend</code></pre>")}
    </div></div></body></html>`;

  it("reads every section in order, not only the longest, and leaves the sidebar out", async () => {
    const text = textOf(await readHtml(html, "https://tool.example/docs/tool-record"));
    inOrder(text, [
      "NAME",
      "Record changes to the repository",
      "DESCRIPTION",
      "Create a new change",
      "OPTIONS",
      "--signoff",
      "EXAMPLES",
      "tool record --amend",
    ]);
    assert.ok(!text.includes("tool-log"), text);
  });
});

describe("direct reader: documentation with tabbed steps", () => {
  const panel = (system: string, command: string, shown: boolean) =>
    `<div role="tabpanel" id="panel-${system}" aria-labelledby="tab-${system}"${shown ? "" : ' hidden aria-hidden="true"'}>
      <p>On ${system}, add the package source once, then install the tools with the system's package manager.</p>
      <pre><code class="language-bash">${command}</code></pre></div>`;
  const html = `<!DOCTYPE html><html><head><title>Install the tools - Docs</title></head><body>
    <nav class="sidebar"><ul><li><a href="/docs/start">Start</a></li><li><a href="/docs/deploy">Deploy</a></li><li><a href="/docs/config">Configure</a></li></ul></nav>
    <main><h1>Install the tools</h1>
      <p>The tools run on your own computer, so you can build and test a project before you deploy it. Pick your system below; each one takes a few minutes.</p>
      <div role="tablist"><button role="tab" id="tab-windows">Windows</button><button role="tab" id="tab-linux">Linux</button><button role="tab" id="tab-macos">macOS</button></div>
      ${panel("windows", "winget install tools", true)}
      ${panel("linux", "sudo apt-get install tools", false)}
      <div role="tabpanel" id="panel-macos" style="display: none"><p>On macOS, install the tools with Homebrew after tapping the project's formula repository.</p><pre><code>brew install tools</code></pre></div>
      <h2>Check the install</h2><p>Run the version command; it prints the version of the tools and of the runtime they found on the computer.</p>
      <pre><code class="language-bash">tools --version</code></pre>
    </main></body></html>`;

  it("reads every tab's panel, the hidden ones too, in the page's order", async () => {
    const outcome = await readHtml(html, "https://tools.example/docs/install");
    assert.equal(outcome.pageType, "documentation");
    inOrder(textOf(outcome), [
      "winget install tools",
      "On linux, add the package source",
      "sudo apt-get install tools",
      "brew install tools",
      "Check the install",
      "tools --version",
    ]);
  });
});
