/**
 * The direct reader on discussion threads beyond the platforms' post markup: quotes of earlier
 * posts, comment threads named by their class words, Q&A pages. Each page is small and written
 * for the test in the markup its kind of site uses.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseHTML } from "linkedom";
import { extractMain } from "../../../src/web/providers/direct/extract.js";
import { readHtml } from "../../../src/web/providers/direct/html.js";
import { inOrder, textOf } from "./reader-text.js";

/** A post in a XenForo theme's markup. */
const xenPost = (author: string, date: string, body: string) =>
  `<article class="message message--post" data-author="${author}">
    <div class="message-cell message-cell--user"><h4 class="message-name"><a href="/members/1/" class="username">${author}</a></h4></div>
    <div class="message-cell message-cell--main"><header class="message-attribution"><time datetime="2026-01-01">${date}</time></header>
    <article class="message-body js-selectToQuote"><div class="bbWrapper">${body}</div></article></div></article>`;

/** A XenForo quote block: its title names the quoted author, its content the quoted words. */
const xenQuote = (author: string, words: string) =>
  `<blockquote class="bbCodeBlock bbCodeBlock--expandable bbCodeBlock--quote"><div class="bbCodeBlock-title"><a href="/goto/post?id=1">${author} said:</a></div>
    <div class="bbCodeBlock-content"><div class="bbCodeBlock-expandContent">${words}</div><div class="bbCodeBlock-expandLink"><a>Click to expand...</a></div></div></blockquote>`;

describe("direct reader: quotes in a thread", () => {
  const opening =
    "My sourdough rises well overnight in the fridge but spreads flat on the stone as soon as it is scored and baked at high heat.";
  const outside = "Shape tightly and bake cold straight from the fridge, the book says on page forty.";
  const html = `<!DOCTYPE html><html><head><title>Flat loaves</title></head><body><div class="p-body">
    ${xenPost("RyeRita", "Jan 1, 2026", opening)}
    ${xenPost("crumbshot", "Jan 1, 2026", `${xenQuote("RyeRita", opening)}That is over-proofing: shorten the cold retard to twelve hours.`)}
    ${xenPost("OvenSpring", "Jan 2, 2026", `${xenQuote("Hamelman", outside)}Try a tighter shape before anything else.`)}
    </div></body></html>`;

  it("cuts a quote of an earlier post to its attribution, and keeps a quote from elsewhere whole", async () => {
    const text = textOf(await readHtml(html, "https://bakers.example/threads/flat.7"));
    assert.equal(text.split("spreads flat on the stone").length - 1, 1, text);
    inOrder(text, [
      "RyeRita · Jan 1, 2026",
      "spreads flat on the stone",
      "crumbshot · Jan 1, 2026",
      "RyeRita said: …",
      "shorten the cold retard",
      "OvenSpring · Jan 2, 2026",
      "Hamelman said:",
      "bake cold straight from the fridge",
      "tighter shape",
    ]);
  });
});

describe("direct reader: threads named by their class words", () => {
  /** A comment in a link aggregator's markup: byline, text block, replies nested inside. */
  const comment = (who: string, said: string, replies = "") =>
    `<li class="comments_subtree"><div class="comment"><div class="byline"><a class="user" href="/~${who}">${who}</a> <time datetime="2026-02-01">2 hours ago</time> <a href="/c/${who}">link</a></div>
      <div class="comment_text"><p>${said}</p></div></div>${replies ? `<ol class="comments">${replies}</ol>` : ""}</li>`;
  const story = `<!DOCTYPE html><html><head><title>Rust project goals | Links</title></head><body>
    <header><nav><a href="/">Home</a><a href="/recent">Recent</a><a href="/comments">Comments</a></nav></header>
    <main><div class="story"><h1><a href="https://blog.example/goals">Rust project goals for 2026</a></h1><p>via <a href="/~ada">ada</a>, 4 points</p></div>
    <ol class="comments">
      ${comment("kkiri", "Very interested in the ergonomic reference counting, since async tasks make me clone every shared pointer.", comment("dureuill", "So do I, and I doubt eliding clones would improve ergonomics enough to pay for another trait.") + comment("kbknapp", "Same concern here: a lightweight clone trait brings downsides that outweigh the typing it saves."))}
      ${comment("junon", "Great writeup: cargo script alone will make small tools much nicer to share with colleagues.")}
    </ol></main><footer><a href="/about">About</a></footer></body></html>`;

  it("reads a story's nested comments in order, each under its author line", async () => {
    const outcome = await readHtml(story, "https://links.example/s/abc/rust_goals");
    const text = textOf(outcome);
    inOrder(text, [
      "kkiri · 2 hours ago",
      "ergonomic reference counting",
      "dureuill · 2 hours ago",
      "eliding clones",
      "kbknapp · 2 hours ago",
      "lightweight clone trait",
      "junon · 2 hours ago",
      "cargo script",
    ]);
    assert.equal(outcome.pageType, "forum");
    assert.equal(outcome.strategy, "thread");
  });

  it("reads such comments as the page only where the page is not typed article or documentation, or says it is a discussion", () => {
    // A blog's or a docs page's own body often wraps its comments and carries a post-body class
    // like them: there the comments never replace the body.
    const extract = (html: string, prose: boolean) => extractMain(parseHTML(html).document, prose).strategy;
    assert.equal(extract(story, false), "thread");
    assert.notEqual(extract(story, true), "thread");
    const stated = story.replace(
      "</head>",
      '<script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"Rust project goals"}</script></head>',
    );
    assert.equal(extract(stated, true), "thread");
  });

  it("keeps a blog post with a few named comments an article, its comments out", async () => {
    const said = (who: string, words: string) =>
      `<li class="comment"><div class="comment-author"><a href="/u/${who}">${who}</a></div><div class="comment-content"><p>${words}</p></div></li>`;
    const html = `<html><head><title>Pruning apple trees</title></head><body><article><h1>Pruning apple trees</h1>
      ${"<p>Prune in late winter, while the tree is dormant, and never take more than a quarter of the canopy in one year. </p>".repeat(6)}
      </article><ol class="comment-list">${said("Ann", "Thanks, very clear.")}${said("Bo", "Does this hold for pears as well?")}${said("Cy", "Mine fruit every other year only.")}</ol></body></html>`;
    const outcome = await readHtml(html, "https://garden.example/pruning");
    assert.equal(textOf(outcome).match(/Prune in late winter/g)?.length, 6, textOf(outcome));
    assert.ok(!textOf(outcome).includes("every other year"), textOf(outcome));
    assert.notEqual(outcome.strategy, "thread");
  });

  it("does not read a listing of post excerpts, each under a headline linking to its post, as a thread", async () => {
    const excerpt = (n: number, title: string) =>
      `<article class="post"><h2 class="post-title"><a href="/posts/${n}">${title}</a></h2><span class="author">Mara</span> <time>May ${n}, 2026</time>
        <div class="post-content"><p>${title}: what we changed, why it matters to growers, and what comes next season.</p></div></article>`;
    const html = `<html><head><title>Blog</title></head><body><main><h1>Orchard notes</h1>
      ${excerpt(1, "Grafting in spring")}${excerpt(2, "Thinning young fruit")}${excerpt(3, "Storing apples")}${excerpt(4, "Cider from windfalls")}</main></body></html>`;
    const outcome = await readHtml(html, "https://orchard.example/blog");
    assert.notEqual(outcome.strategy, "thread");
    inOrder(textOf(outcome), [
      "Grafting in spring",
      "Thinning young fruit",
      "Storing apples",
      "Cider from windfalls",
    ]);
  });
});

describe("direct reader: threads in the markup of Vanilla and of Reddit's older interface", () => {
  const said = [
    "We have decided to stop updating the open source version after the first of January next year.",
    "Thank you for all the years of work; the community edition carried our club's forum for a decade.",
    "Is there a fork anyone is maintaining, or should we plan a migration to another platform now?",
  ];
  /** A Vanilla comment: its header names the author, its body holds the message. */
  const vanilla = (who: string, text: string) =>
    `<li class="Item ItemComment"><div class="Comment"><div class="Item-Header CommentHeader"><div class="AuthorWrap"><span class="Author"><a href="/profile/${who}" class="Username">${who}</a></span></div>
      <div class="Meta CommentMeta CommentInfo"><span class="MItem DateCreated"><time datetime="2025-03-01">March 2025</time></span></div></div>
      <div class="Item-BodyWrap"><div class="Item-Body"><div class="Message userContent"><p>${text}</p></div><div class="Reactions"><a href="#">Quote</a></div></div></div></div></li>`;

  it("reads every Vanilla comment under its author line", async () => {
    const html = `<!DOCTYPE html><html><head><title>Open source Vanilla</title></head><body>
      <div id="Frame"><div class="Content MainContent"><h1>Open source Vanilla is ending</h1>
      <ul class="MessageList DataList Comments">${said.map((text, i) => vanilla(["Linc", "Rosa", "Quinn"][i] as string, text)).join("")}</ul></div>
      <div class="Panel"><a href="/categories">Categories</a> <a href="/discussions">Recent discussions</a></div></div></body></html>`;
    const text = textOf(await readHtml(html, "https://forum.example/discussion/1/vanilla"));
    inOrder(text, [
      "Linc · March 2025",
      "stop updating",
      "Rosa · March 2025",
      "club's forum",
      "Quinn",
      "fork anyone",
    ]);
  });

  it("reads a Lemmy post and its comments, each under its author's name", async () => {
    /** A Lemmy comment node: author and time, then its Markdown block. */
    const node = (who: string, text: string) =>
      `<li class="comment list-unstyled"><article class="details comment-node py-2"><div class="d-flex"><a class="person-listing" href="/u/${who}">${who}</a> <span class="moment-time">1 year ago</span></div>
        <div class="comment-content"><div class="md-div"><p>${text}</p></div></div><div class="comment-bottom-btns"><button>reply</button></div></article></li>`;
    const html = `<!DOCTYPE html><html><head><title>Vanilla is ending - Lemmy</title><meta property="og:type" content="article"></head><body>
      <nav class="navbar"><a href="/">Lemmy</a><a href="/communities">Communities</a><a href="/login">Login</a></nav>
      <main role="main"><div class="post-listing"><h1 class="post-title">Vanilla is ending</h1><a class="person-listing" href="/u/Linc">Linc</a></div>
      <article class="col-12 card" id="postContent"><div class="md-div"><p>${said[0]}</p></div></article>
      <ul class="comments">${node("Rosa", said[1] as string)}${node("Quinn", said[2] as string)}</ul></main></body></html>`;
    const outcome = await readHtml(html, "https://lemmy.example/post/1");
    const text = textOf(outcome);
    assert.equal(outcome.strategy, "thread");
    inOrder(text, ["stop updating", "Rosa", "club's forum", "Quinn", "fork anyone"]);
  });

  it("reads a Reddit thread's post and comments without the subreddit's sidebar rules", async () => {
    /** A comment (a `thing`) in Reddit's older markup; its replies sit in its `child`. */
    const thing = (who: string, text: string, replies = "") =>
      `<div class="thing comment"><div class="entry"><p class="tagline"><a href="/user/${who}" class="author">${who}</a> <span class="score">12 points</span></p>
        <form class="usertext"><div class="usertext-body may-blank-within md-container"><div class="md"><p>${text}</p></div></div></form></div>
        <div class="child">${replies}</div></div>`;
    const html = `<!DOCTYPE html><html><head><title>Forum software : selfhosted</title></head><body>
      <div class="side"><div class="usertext-body"><div class="md"><h2>Rules</h2><ol><li>Be civil to other members at all times.</li><li>No spam or self-promotion in posts.</li></ol></div></div></div>
      <div class="content" role="main"><div class="sitetable linklisting"><div class="thing link self"><p class="title"><a href="/r/selfhosted/comments/1/">Vanilla is ending</a></p>
        <div class="expando"><form class="usertext"><div class="usertext-body"><div class="md"><p>${said[0]}</p></div></div></form></div></div></div>
      <div class="commentarea"><div class="sitetable nestedlisting">${thing("Rosa", said[1] as string, thing("Quinn", said[2] as string))}</div></div></div>
      </body></html>`;
    const outcome = await readHtml(html, "https://old.reddit.example/r/selfhosted/comments/1/vanilla/");
    const text = textOf(outcome);
    inOrder(text, ["stop updating", "Rosa", "club's forum", "Quinn", "fork anyone"]);
    assert.ok(!text.includes("Be civil"), text);
    assert.equal(outcome.strategy, "thread");
  });
});
