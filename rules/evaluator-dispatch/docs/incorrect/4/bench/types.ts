export interface Check { kind: "url" | "text" | "title"; url?: string; text?: string; title?: string }
export interface Task { id: string; goal: string; check: Check }
