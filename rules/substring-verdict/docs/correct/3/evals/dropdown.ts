import { z } from "zod";

export const chooseCountry = async ({ v3 }: { v3: any }) => {
  await v3.act("choose Canada from the 'Select a Country' dropdown");
  const shown = await v3.extract("the value shown in the 'Select a Country' dropdown", z.object({ value: z.string() }));
  return { success: shown.value === "Canada" };
};
