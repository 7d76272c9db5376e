export const chooseCountry = async ({ v3 }: { v3: any }) => {
  await v3.act("choose Canada from the 'Select a Country' dropdown");
  const fullTree = (await v3.extract()).pageText;
  return { success: fullTree.includes("Canada") }; // vaudit-expect: substring-verdict/literal
};
