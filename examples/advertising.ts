// Advertising with the SDK (HTTP Basic, data-ingestion credentials): create a CPC program, poll
// its job until COMPLETED (pollJob honours the 202's Retry-After), set two of its features (the
// Program Feature API), list the business's programs with their active features, then end the
// program through another job.
import { createPbsClient, ok, pollJob } from '@pbs/sdk';
import { runWhenMain, type ExampleEnv } from './support.js';

export async function advertising(env: ExampleEnv) {
  const partner = createPbsClient({ baseUrl: env.baseUrl, auth: { apiKey: env.apiKey } });
  const ads = createPbsClient({ baseUrl: env.baseUrl, auth: { basic: env.basic } });
  const { restaurants } = await ok(partner.GET('/v3/partner/restaurants', { params: { query: { limit: 1 } } }));
  const business = restaurants[0].business_id!;

  const created = await ok(
    ads.POST('/v1/reseller/program/create', {
      params: { query: { business_id: business, program_name: 'CPC', budget: 20_000, is_autobid: true } },
    }),
  );
  const receipt = await pollJob(ads, created.job_id);
  const added = receipt.business_results[0].update_results?.program_added;
  const program = String(added?.program_id?.requested_value);
  env.log(`job ${created.job_id} ${receipt.status}: program ${program}, budget ${JSON.stringify(added?.budget)}`);

  const path = { params: { path: { program_id: program } } };
  const features = await ok(
    ads.POST('/program/{program_id}/features/v1', {
      ...path,
      body: { features: { AD_GOAL: { ad_goal: 'CALLS' }, CUSTOM_RADIUS_TARGETING: { custom_radius: 10 } } },
    }),
  );
  env.log(`ad goal ${JSON.stringify(features.features.AD_GOAL)}, radius ${JSON.stringify(features.features.CUSTOM_RADIUS_TARGETING)}`);

  const listed = await ok(ads.GET('/v1/programs/list/{business_ids}', { params: { path: { business_ids: business } } }));
  const active = listed.businesses[0].programs?.find((p) => p.program_id === program)?.active_features ?? [];
  env.log(`${listed.businesses[0].total} program(s) for ${business}; active features: ${active.join(', ')}`);

  const ending = await ok(ads.POST('/v1/reseller/program/{program_id}/end', { params: { path: { program_id: program } } }));
  const ended = await pollJob(ads, ending.job_id);
  const endStatus = ended.business_results[0].update_results?.program_ended?.status;
  env.log(`program ${program} ended: ${endStatus}`);
  return { business, program, created: receipt.status, active, ended: endStatus };
}

runWhenMain(import.meta.url, advertising);
