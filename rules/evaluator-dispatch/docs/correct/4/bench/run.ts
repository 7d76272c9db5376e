import { chromium, type Page } from "playwright";
import { tasks } from "./tasks";
import type { Task } from "./types";

function urlCheck(page: Page, check: { url: string }): boolean {
  return page.url().split("?")[0] === check.url;
}

async function textCheck(page: Page, check: { text: string }): Promise<boolean> {
  return (await page.locator("body").innerText()).includes(check.text);
}

async function titleCheck(page: Page, check: { title: string }): Promise<boolean> {
  return (await page.title()).trim() === check.title;
}

async function evaluate(task: Task, page: Page): Promise<boolean> {
  switch (task.check.kind) {
    case "url":
      return urlCheck(page, task.check);
    case "text":
      return textCheck(page, task.check);
    case "title":
      return titleCheck(page, task.check);
    default:
      throw new Error(`unknown check ${task.check.kind}`);
  }
}

export async function main(): Promise<void> {
  const browser = await chromium.launch();
  for (const task of tasks) {
    const page = await browser.newPage();
    console.log(task.id, await evaluate(task, page));
  }
  await browser.close();
}
