// Typed calls for /api/scheduler/{id} (spec §7 "Scheduler"): list and create by agent id, update and
// delete by schedule id. The rules and shapes are shared with the server (schedule-rules.ts).
import { request } from './http.ts';
import type { ScheduleRule } from './schedule-rules.ts';

/** A stored schedule: times in UTC, next_run an ISO instant the server computed. */
export type Schedule = ScheduleRule & { id: number; agent_id: number; next_run: string; last_run: string | null; created_at: string; updated_at: string };

export const listSchedules = (agentId: number) => request<Schedule[]>(`/scheduler/${agentId}`);
export const createSchedule = (agentId: number, rule: ScheduleRule) => request<Schedule>(`/scheduler/${agentId}`, { method: 'POST', body: rule });
export const updateSchedule = (id: number, rule: ScheduleRule) => request<Schedule>(`/scheduler/${id}`, { method: 'PUT', body: rule });
export const deleteSchedule = (id: number) => request<null>(`/scheduler/${id}`, { method: 'DELETE' });
