// Advertising with the SDK (HTTP Basic, data-ingestion credentials): create a CPC program, poll
// its job until COMPLETED (pollJob honours the 202's Retry-After), list the business's programs,
// then end the program through another job.
import { createPbsClient, ok, pollJob } from '@pbs/sdk';
import { runWhenMain, type ExampleEnv } from './support.js';

export async function advertising(env: ExampleEnv) {
  const partner = createPbsClient({ baseUrl: env.baseUrl, auth: { apiKey: env.apiKey } });
  const ads = createPbsClient({ baseUrl: env.baseUrl, auth: { basic: env.basic } });
  const { restaurants } = await ok(partner.GET('/v3/partner/restaurants', { params: { query: { limit: 1 } } }));
  const business = restaurants[0].business_id!;

  const created = await ok(ads.POST('/v1/reseller/program/create', { params: { query: { business_id: business, program_name: 'CPC', budget: 20_000, is_autobid: true } } }));
  const receipt = await pollJob(ads, created.job_id);
  const added = receipt.business_results[0].update_results?.program_added;
  const program = String(added?.program_id?.requested_value);
  env.log(`job ${created.job_id} ${receipt.status}: program ${program}, budget ${JSON.stringify(added?.budget)}`);

  const listed = await ok(ads.GET('/v1/programs/list/{business_ids}', { params: { path: { business_ids: business } } }));
  env.log(`${listed.businesses[0].total} program(s) for ${business}`);

  const ending = await ok(ads.POST('/v1/reseller/program/{program_id}/end', { params: { path: { program_id: program } } }));
  const ended = await pollJob(ads, ending.job_id);
  const endStatus = ended.business_results[0].update_results?.program_ended?.status;
  env.log(`program ${program} ended: ${endStatus}`);
  return { business, program, created: receipt.status, ended: endStatus };
}

runWhenMain(import.meta.url, advertising);
